"""cases() and reference_step(): the sample space is deterministic and inside the envelope;
the reference agrees with the test's own numpy step."""
import numpy as np
import pytest

import kda_harness
import numpy_step


def config_of(line):
    return dict(item.split("=", 1) for item in line.split())


def test_cases_are_deterministic_per_seed():
    first = list(kda_harness.cases(n=4, seed=3))
    again = list(kda_harness.cases(n=4, seed=3))
    other = [c.config for c in kda_harness.cases(n=4, seed=4)]
    assert [c.config for c in first] == [c.config for c in again]
    assert [c.config for c in first] != other
    for x, y in zip(first, again):
        for name, t in x.tensors.items():
            assert t.strides == y.tensors[name].strides
            assert np.ascontiguousarray(t).tobytes() == np.ascontiguousarray(y.tensors[name]).tobytes()


def test_each_case_is_a_valid_call_of_its_config():
    for c in kda_harness.cases(n=8, seed=5):
        cfg = config_of(c.config)
        dims = kda_harness.validate(**c.kwargs(), check_values=True)
        assert (dims.B, dims.K, dims.V, dims.L) == (int(cfg["B"]), int(cfg["K"]), int(cfg["V"]), int(cfg["L"]))
        assert ("force_flush" in c.tensors) == (cfg["ff"] == "1")


def test_cases_stay_inside_the_envelope():
    env = kda_harness.Envelope(act_dtypes=("float16",), out_dtypes=("bfloat16",), index_dtypes=("int64",),
                               k=(16, 32), l_max=3, strided=False)
    for c in kda_harness.cases(n=12, seed=2, envelope=env):
        cfg = config_of(c.config)
        assert (cfg["act"], cfg["out"], cfg["idx"], cfg["env"]) == ("f16", "bf16", "i64", "0")
        assert int(cfg["K"]) in (16, 32) and int(cfg["L"]) <= 3


def test_strided_cases_keep_their_layout_and_gaps():
    c = kda_harness.case("B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 env=1 seed=9")
    state = c.tensors["initial_state"]
    assert not state.flags.c_contiguous
    gap_start = state[0].size  # the slot stride leaves a gap after each slot's elements
    base = np.lib.stride_tricks.as_strided(state, shape=(state.strides[0] // state.itemsize,),
                                           strides=(state.itemsize,))
    assert np.isnan(base[gap_start:]).all()


def test_reference_step_agrees_with_the_numpy_step():
    line = "B=4 H=2 HV=4 K=16 V=8 L=5 slots=6 act=f32 state=f32 ring=f32 out=f32 pad=0.25 flush=0.5 seed=11"
    ours, theirs = kda_harness.case(line), kda_harness.case(line)
    kda_harness.reference_step(**ours.kwargs(), rounding="off")
    numpy_step.replayssm_step(**theirs.kwargs())
    for name in ("out", "initial_state", "d_cache", "k_cache", "g_cache"):
        np.testing.assert_allclose(ours.tensors[name], theirs.tensors[name], rtol=1e-5, atol=1e-6, equal_nan=True)
    assert not np.isnan(ours.tensors["out"]).any()


def test_reference_step_refuses_an_invalid_call_and_writes_nothing():
    c = kda_harness.case("B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 out=f32 seed=1")
    call = c.kwargs()
    call["write_pos"] = np.array([0, 3], np.int32)  # L = 3: cursor 3 is outside [0, L-1]
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.reference_step(**call)
    assert raised.value.id == "X-WRITE-POS"
    assert np.isnan(c.tensors["out"]).all()  # still the harness's NaN fill


def test_malformed_requests_are_value_errors_not_crashes():
    with pytest.raises(ValueError, match="unknown key 'bogus'"):
        kda_harness.case("bogus=1")
    with pytest.raises(ValueError, match="does not describe a valid call: K=3"):
        kda_harness.case("K=3")
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        kda_harness.check(numpy_step.replayssm_step, suites="nope")
    with pytest.raises(ValueError, match="unknown operator"):
        kda_harness.validate(**kda_harness.case("B=1 K=4 V=4").kwargs(), op="kda_other")
