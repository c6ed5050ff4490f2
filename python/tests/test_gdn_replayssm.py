"""GDN ReplaySSM (op="gdn_replayssm") from Python: its scalars as the C library lists them
(nk and the ring-variant flags beside KDA's three), validate() with its own checks and
messages (a strided gate refused by the harness's extension, a G check byte for byte, nk
reaching G32), its reference step, and check() on a numpy GDN step (passes every suite and
error input) and on a copy with a planted bug in the bounded gate (fails exactly there), and
on the CPU example plugin of the operator."""
import os
import re

import numpy as np
import pytest

import kda_harness
import numpy_gdn_step

OP = numpy_gdn_step.OP
LINE = "B=3 H=2 HV=4 K=32 V=16 L=4 slots=5 act=f32 state=f32 ring=f32 out=f32 idx=i32 ff=1 pad=0 seed=7"
B, H, HV, K, V, L, S = 3, 2, 4, 32, 16, 4, 5
ROLLOUTS = 12
CONTRACT = 29  # one case per error input: G1-G32 less those a call's tensors cannot break, K = 0 and a short d_cache


def config_of(line):
    return dict(item.split("=", 1) for item in line.split(" | ")[0].split())


def gdn_call():
    return kda_harness.case(LINE, op=OP).kwargs()


def render(template, **names):
    """The message as SGLang's f-string gives it on these values."""
    return eval("f" + repr(template), {}, names)


def contract_error(**call):
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(op=OP, **call)
    return raised.value


def test_a_case_holds_the_operators_scalars_typed():
    call = gdn_call()
    assert call["a"].shape == (B, HV) and call["dt_bias"].shape == (HV,) and call["g_cache"].shape == (S, HV, L)
    assert call["nk"] == 2 and type(call["nk"]) is int
    assert all(call[f] is False for f in ("circular_replay", "prefix_gate_cache", "predecayed_k_cache"))
    assert call["lower_bound"] is None and call["cache_base"] is None
    assert kda_harness.validate(op=OP, **call, check_values=True) == kda_harness.Dims(B, H, HV, K, V, L, S)


def test_another_operator_refuses_gdn_scalars():
    call = kda_harness.case("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 seed=7").kwargs()
    with pytest.raises(TypeError, match="'nk'"):
        kda_harness.validate(**call, nk=2)


@pytest.mark.parametrize("strided", ["a", "dt_bias"])
def test_a_strided_gate_raises_the_gate_strides_extension(catalog, strided):
    call = gdn_call()
    wide = np.repeat(call[strided], 2, axis=-1)  # every value twice: a stride-2 view holds the same values
    call[strided] = wide[..., ::2]
    assert np.array_equal(call[strided], gdn_call()[strided]) and call[strided].strides[-1] == 2 * wide.itemsize
    error = contract_error(**call)
    assert error.id == "X-GDN-GATE-STRIDES"
    assert str(error) == catalog["X-GDN-GATE-STRIDES"]["message"]


def test_g17_gives_the_wrappers_message_byte_for_byte(catalog):
    a = np.zeros((B, HV, 1), np.float32)  # a KDA-style trailing dim
    error = contract_error(**{**gdn_call(), "a": a})
    assert error.id == "G17"
    assert str(error) == render(catalog["G17"]["message"], B=B, HV=HV, a=a) == \
        "GDN `a` must have shape (3, 4) (got (3, 4, 1))."


def test_nk_reaches_the_contract(catalog):
    error = contract_error(**{**gdn_call(), "nk": 4})  # BK = 32: tiles of 8 columns
    assert error.id == "G32"
    assert str(error) == render(catalog["G32"]["message"], BKT=8, nk=4, BK=32)
    assert contract_error(**{**gdn_call(), "nk": 0}).id == "X-GDN-NK"
    assert kda_harness.validate(op=OP, **{**gdn_call(), "nk": 1}).K == K


def test_the_reference_step_agrees_with_the_numpy_step():
    ours, reference = gdn_call(), gdn_call()
    numpy_gdn_step.gdn_step(**ours)
    kda_harness.reference_step(op=OP, rounding="off", **reference)
    for name in ("out", "initial_state", "d_cache", "k_cache", "g_cache"):
        np.testing.assert_allclose(ours[name], reference[name], rtol=1e-4, atol=1e-5, err_msg=name)
    assert not np.array_equal(ours["out"], gdn_call()["out"], equal_nan=True)  # the step wrote its output


# The numpy step serves both ring variants (spec circular-replay.md).
BOTH_RINGS = ("linear", "circular")


def test_the_numpy_step_passes_every_suite():
    report = kda_harness.check(numpy_gdn_step.gdn_step, op=OP, suites=kda_harness.suites(), n=ROLLOUTS,
                               envelope=kda_harness.Envelope(ring_modes=BOTH_RINGS))
    assert report.passed, str(report)
    assert len(report.cases) == 4 * ROLLOUTS
    assert any(" circ=1" in c.replay for c in report.cases)  # circular rings were sampled


def linear_only_step(**call):
    """The numpy step as a kernel that serves linear rings only and says so."""
    if call.get("circular_replay"):
        raise ValueError("circular replay is not implemented")
    numpy_gdn_step.gdn_step(**call)


def test_a_linear_only_step_is_asked_to_refuse_circular_rings():
    """A backend declaring the linear ring alone (the default) meets circular calls only in the
    envelope suite, where it must refuse them; computing one fails, saying why."""
    report = kda_harness.check(linear_only_step, op=OP, suites="envelope,kernel", n=10)
    assert report.passed, str(report)
    outside = {c.replay.split(" | ")[1] for c in report.cases if " | outside the envelope" in c.replay}
    assert "outside the envelope: a circular ring (circ=1) on a linear-ring backend" in outside
    assert not [c for c in report.cases if " circ=1" in c.replay and " | outside" not in c.replay]
    computes = kda_harness.check(numpy_gdn_step.gdn_step, op=OP, suites="envelope", n=10)
    assert not computes.passed
    assert all("a circular ring (circ=1) on a linear-ring backend" in c.replay for c in computes.failures)


def test_the_numpy_step_passes_every_error_input():
    report = kda_harness.check(numpy_gdn_step.gdn_step, op=OP, suites="kernel-contract", n=CONTRACT)
    assert report.passed, str(report)
    inputs = {c.replay.split("error input ")[1] for c in report.cases}
    assert len(inputs) == CONTRACT and {"G12-K0", "G17", "G23", "G25", "G32"} <= inputs


def wrapper_like_step(**call):
    """The numpy step behind SGLang's wrapper as a real kernel meets the error inputs: the
    documented checks with their messages, and a framework error (no "[kda-harness]" text)
    where only a harness extension refuses the call (K = 0: ZeroDivisionError; a d_cache
    under 3 dims: IndexError)."""
    try:
        kda_harness.validate(op=OP, **call)
    except kda_harness.ContractError as e:
        if str(e).startswith("[kda-harness]"):
            raise IndexError("tuple index out of range") from None
        raise
    numpy_gdn_step.gdn_step(**call)


def test_a_framework_error_where_only_an_extension_refuses_passes_the_contract_suite():
    """Issue 34: G12-K0 and G16-short asked the harness's own message, which no real wrapper
    raises; any refusal that writes nothing passes there, and the case says which it got."""
    report = kda_harness.check(wrapper_like_step, op=OP, suites="kernel-contract", n=CONTRACT)
    assert report.passed, str(report)
    by_input = {c.replay.split("error input ")[1]: c for c in report.cases}
    for label, extension in (("G12-K0", "X-GDN-EMPTY-HEADS"), ("G16-short", "X-GDN-RING-RANK")):
        assert by_input[label].detail == ("refused with 'plugin:wrapper_like_step refused the call: IndexError: tuple "
                                          "index out of range', nothing written (any message: only the harness's "
                                          f"extension {extension} refuses {label})")
    assert by_input["G17"].detail.startswith("refused with G17: GDN `a` must have shape")

    def accepts(**call):
        pass

    failures = {c.replay.split("error input ")[1]: c.detail for c in kda_harness.check(
        accepts, op=OP, suites="kernel-contract", n=CONTRACT).failures}
    assert failures["G16-short"].startswith("accepted an invalid call; expected a refusal, any message (only the "
                                            "harness's extension X-GDN-RING-RANK refuses it: [kda-harness] ")


def compact_only_step(**call):
    """The numpy step with SGLang's Triton kernel's envelope (K >= 32, int32
    indices, compact tensors): a strided call is refused."""
    if not all(np.asarray(x).flags.c_contiguous for x in call.values() if isinstance(x, np.ndarray)):
        raise ValueError("compact tensors only")
    numpy_gdn_step.gdn_step(**call)


def test_an_outside_case_exists_only_where_something_lies_outside_and_says_what():
    """Issue 34: under a restriction to float32, a K >= 32 compact-only backend was asked to
    refuse a call "outside the envelope: " with no reason (K = 16, which gdn_replayssm's cases
    lift back to 32)."""
    float32 = ("float32",)
    restrict = kda_harness.Envelope(act_dtypes=float32, state_dtypes=float32, ring_dtypes=float32, out_dtypes=float32)
    envelope = kda_harness.Envelope(k=(32, None), index_dtypes=("int32",), strided=False, ring_modes=BOTH_RINGS)
    report = kda_harness.check(compact_only_step, op=OP, suites="envelope,kernel", n=10, envelope=envelope,
                               restrict=restrict)
    assert report.passed, str(report)
    outside = [c.replay.split(" | ")[1] for c in report.cases if " | outside the envelope" in c.replay]
    assert len(outside) == 11  # every envelope case and the kernel suite's case 8
    assert set(outside) == {"outside the envelope: strided layouts (env=1) on a compact-only backend"}
    strided = kda_harness.Envelope(k=(32, None), index_dtypes=("int32",), ring_modes=BOTH_RINGS)
    report = kda_harness.check(numpy_gdn_step.gdn_step, op=OP, suites="envelope,kernel", n=10, envelope=strided,
                               restrict=restrict)
    assert report.passed, str(report)
    assert not [c for c in report.cases if "outside the envelope" in c.replay]


def test_the_planted_bug_fails_exactly_the_bounded_gate_cases():
    report = kda_harness.check(numpy_gdn_step.gdn_step_planted_bug, op=OP, suites="kernel", n=2 * ROLLOUTS,
                               envelope=kda_harness.Envelope(ring_modes=BOTH_RINGS))
    # A case whose rows are all padding computes no gate, so the bug cannot show there.
    computed = {c.index for c in report.cases if not re.search(r" 0 flushes, 0 appends", c.detail)}
    bounded = {c.index for c in report.cases if config_of(c.replay)["lb"] != "none"} & computed
    assert 0 < len(bounded) < 2 * ROLLOUTS  # the sample has cases with and without the bounded gate
    assert {c.index for c in report.failures} == bounded
    for failure in report.failures:
        assert "Mismatched blocks: " in failure.detail
        kda_harness.validate(op=OP, **kda_harness.case(failure.config, op=OP).kwargs())  # the replay starts with a case


def test_the_cpu_example_plugin_passes():
    path = os.environ.get("KDA_CPU_GDN_PLUGIN")
    if not path:
        pytest.skip("KDA_CPU_GDN_PLUGIN is not set (ctest sets it to the CPU example of gdn_replayssm, plugins/)")
    plugin = kda_harness.load_plugin(path)
    assert plugin.kda_op == OP
    report = kda_harness.check(plugin, n=6)
    assert report.passed, str(report)
