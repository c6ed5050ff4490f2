"""The plain packed decode (op="kda_packed_decode") from Python: validate() applies its
contract to `a` as given (a 3-D `a` fails V3, a row-padded one passes, where ReplaySSM's
wrapper flattens the first and refuses the second), its cases and reference step, and check()
on a numpy packed step (passes) and on copies with beta rounded through b's dtype, which this
operator must not do (fail)."""
import os
import re

import numpy as np
import pytest

import kda_harness
import numpy_packed_step

OP = numpy_packed_step.OP
LINE = "B=3 H=2 HV=4 K=8 V=16 L=4 slots=5 act=f32 state=f32 ring=bf16 out=f32 idx=i32 ff=1 pad=0 seed=7"
B, H, HV, K, V, S = 3, 2, 4, 8, 16, 5
RINGS = ("d_cache", "k_cache", "g_cache", "write_pos", "force_flush")
ROLLOUTS = 24
CONTRACT = 21  # one case per error input of the documented checks less V9 (the device check)


def config_of(line):
    return dict(item.split("=", 1) for item in line.split(" | ")[0].split())


def packed_call():
    return kda_harness.case(LINE, op=OP).kwargs()


def render(template, **names):
    """The message as SGLang's f-string gives it on these tensors."""
    return eval("f" + repr(template), {}, names)


def row_padded(x, pad=5):
    """x's rows `pad` elements apart beyond their length: unit last stride, not contiguous."""
    wide = np.full((x.shape[0], x.shape[1] + pad), np.nan, x.dtype)
    wide[:, :x.shape[1]] = x
    return wide[:, :x.shape[1]]


def test_the_operators_are_listed_default_first():
    assert kda_harness.operators()[0] == "kda_replayssm"
    assert OP in kda_harness.operators()


def test_a_packed_call_is_accepted_with_its_dims():
    call = packed_call()
    assert not set(RINGS) & set(call)  # the operator's case holds only the tensors it takes
    assert kda_harness.validate(op=OP, **call, check_values=True) == kda_harness.Dims(B, H, HV, K, V, 0, S)


def test_a_3d_a_fails_v3_with_the_catalog_message(catalog):
    call = {**packed_call(), "a": np.zeros((B, HV, K), np.float32)}
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(op=OP, **call)
    assert raised.value.id == "V3"
    assert str(raised.value) == render(catalog["V3"]["message"], a=call["a"], b=call["b"])
    # ReplaySSM's wrapper flattens the same `a` (W3) and accepts the call.
    replayssm = {**kda_harness.case(LINE).kwargs(), "a": call["a"]}
    assert kda_harness.validate(**replayssm).HV == HV


def test_a_row_padded_a_is_accepted_where_replayssm_refuses_it(catalog):
    call = packed_call()
    call["a"] = row_padded(call["a"])
    assert not call["a"].flags.c_contiguous and call["a"].strides[1] == call["a"].itemsize
    assert kda_harness.validate(op=OP, **call).B == B
    replayssm = {**kda_harness.case(LINE).kwargs(), "a": call["a"]}
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(**replayssm)
    assert (raised.value.id, str(raised.value)) == ("W1", catalog["W1"]["message"])


def test_arguments_the_operator_does_not_take_are_type_errors():
    ring_call = kda_harness.case(LINE).kwargs()
    with pytest.raises(TypeError, match="unexpected keyword argument.*'d_cache'"):
        kda_harness.validate(op=OP, **ring_call)
    call = packed_call()
    del call["out"]
    with pytest.raises(TypeError, match="missing keyword argument.*'out'"):
        kda_harness.validate(op=OP, **call)
    with pytest.raises(ValueError, match="unknown operator 'kda_other'"):
        kda_harness.case(LINE, op="kda_other")


def test_cases_are_the_operators():
    for c in kda_harness.cases(op=OP, n=6, seed=5):
        cfg = config_of(c.config)
        # its own words: no ring, ring length, cursor, flush or force_flush in its config line
        assert not {"L", "ring", "ff", "flush", "rcur", "circ", "pgc"} & set(cfg), c.config
        assert (cfg["a3d"], cfg["dt2d"]) == ("0", "0")
        assert c.op == OP and set(c.tensors) == set(kda_harness.case(c.config, op=OP).tensors)
        dims = kda_harness.validate(op=OP, **c.kwargs(), check_values=True)
        assert (dims.B, dims.K, dims.V, dims.L) == (int(cfg["B"]), int(cfg["K"]), int(cfg["V"]), 0)


def test_reference_step_agrees_with_the_numpy_packed_step():
    line = "B=4 H=2 HV=4 K=16 V=8 slots=6 act=bf16 state=f32 out=f32 pad=0.25 seed=11"
    ours, theirs = kda_harness.case(line, op=OP), kda_harness.case(line, op=OP)
    kda_harness.reference_step(op=OP, **ours.kwargs(), rounding="off")
    numpy_packed_step.packed_decode_step(**theirs.kwargs())
    for name in ("out", "initial_state"):
        np.testing.assert_allclose(ours.tensors[name], theirs.tensors[name], rtol=1e-5, atol=1e-6, equal_nan=True)
    assert not np.isnan(ours.tensors["out"]).any()


def test_the_numpy_packed_step_passes_every_suite():
    report = kda_harness.check(numpy_packed_step.packed_decode_step, op=OP, suites=kda_harness.suites(), n=ROLLOUTS)
    assert report.passed, str(report)
    assert len(report.cases) == 4 * ROLLOUTS
    assert not any("L" in config_of(c.replay) or "ring" in config_of(c.replay) for c in report.cases)  # no ring


def test_the_numpy_packed_step_passes_every_error_input():
    report = kda_harness.check(numpy_packed_step.packed_decode_step, op=OP, suites="kernel-contract", n=CONTRACT)
    assert report.passed, str(report)
    assert {c.replay.split("error input ")[1] for c in report.cases} >= {"V3", "V5", "V15", "V18"}


def test_beta_rounded_through_b_fails_only_where_b_is_not_float32():
    report = kda_harness.check(numpy_packed_step.packed_decode_step_beta_rounded, op=OP, suites="kernel,kernel-truth",
                               n=ROLLOUTS)
    assert report.failures
    # Rounding sigmoid(b) to float32 changes nothing here: a float32 b cannot show the bug.
    assert all(config_of(f.replay)["act"] != "f32" for f in report.failures)
    failing = report.failures[0]
    again = kda_harness.check(numpy_packed_step.packed_decode_step_beta_rounded, op=OP, config=failing.replay)
    assert not again.passed  # the replay line reruns that case
    assert kda_harness.check(numpy_packed_step.packed_decode_step, op=OP, config=failing.replay).passed


def test_a_case_line_names_its_operator_and_replays_without_op():
    line = kda_harness.config_line(0, op=OP)
    assert line.startswith(f"op={OP} ")
    c = kda_harness.case(line)  # no op: the line's
    assert (c.op, c.config) == (OP, line)
    assert "write_pos" not in c.tensors
    with pytest.raises(ValueError, match=f"op={OP}, but op names kda_replayssm"):
        kda_harness.case(line, op="kda_replayssm")
    assert kda_harness.check(numpy_packed_step.packed_decode_step, config=line).passed  # judged as the line's operator


def test_a_step_that_accepts_invalid_calls_fails_the_packed_contract_suite():
    report = kda_harness.check(lambda **kw: None, op=OP, suites="kernel-contract", n=3)
    assert len(report.failures) == 3
    assert all("accepted an invalid call" in f.detail for f in report.failures)


def plugin(variable):
    path = os.environ.get(variable)
    if not path:
        pytest.skip(f"{variable} is not set (ctest sets it to a CPU example plugin of the plain packed decode)")
    return kda_harness.load_plugin(path)


def test_the_packed_decode_plugin_library_passes_as_its_operator():
    lib = plugin("KDA_CPU_PACKED_DECODE_PLUGIN")
    assert lib.kda_op == OP
    report = kda_harness.check(lib, n=12, seed=3)  # the operator comes from the plugin
    assert report.passed, str(report)


def test_the_packed_decode_plugin_with_beta_rounded_fails():
    lib = plugin("KDA_CPU_PACKED_DECODE_PLUGIN_MUTANT")
    report = kda_harness.check(lib, suites="kernel,kernel-truth", n=ROLLOUTS, seed=3)
    assert report.failures
    assert all(config_of(f.replay)["act"] != "f32" for f in report.failures)
    assert all(re.search(r"\b(out|state)\b", f.detail) for f in report.failures)
