"""check() against Python step functions: the numpy step passes; one planted bug fails on
exactly the cases it touches, with their replay lines; wrong refusals are caught."""
import os

import numpy as np
import pytest

import kda_harness
import numpy_step
from wrappers import corrupting_one_row

ROLLOUTS = 24
CONTRACT = 31  # one case per error input (the documented checks less the device ones)


def config_of(line):
    return dict(item.split("=", 1) for item in line.split(" | ")[0].split())


def test_the_numpy_step_passes_every_suite():
    report = kda_harness.check(numpy_step.replayssm_step, n=ROLLOUTS)
    assert report.passed, str(report)
    assert len(report.cases) == 3 * ROLLOUTS


def test_the_numpy_step_passes_every_error_input():
    report = kda_harness.check(numpy_step.replayssm_step, suites="contract", n=CONTRACT)
    assert report.passed, str(report)
    assert {c.replay.split("error input ")[1] for c in report.cases} >= {"W1", "V14", "R6", "R8"}


def test_the_planted_bug_fails_exactly_the_bounded_gate_cases():
    report = kda_harness.check(numpy_step.replayssm_step_planted_bug, suites="rollout", n=ROLLOUTS)
    bounded = {c.index for c in report.cases if config_of(c.replay)["lb"] != "none"}
    assert 0 < len(bounded) < ROLLOUTS  # the sample has cases with and without the bounded gate
    assert {c.index for c in report.failures} == bounded
    for failure in report.failures:
        assert "FAIL" in failure.detail
        kda_harness.validate(**kda_harness.case(failure.replay).kwargs())  # the replay line is a case


def test_a_step_that_accepts_invalid_calls_fails_the_contract_suite():
    report = kda_harness.check(lambda **kw: None, suites="contract", n=5)
    assert len(report.failures) == 5
    assert all("accepted an invalid call" in f.detail for f in report.failures)


def test_a_wrong_message_fails():
    def step(**kw):
        raise ValueError("bad input")

    report = kda_harness.check(step, suites="contract", n=3)
    assert all("raised 'bad input'" in f.detail for f in report.failures) and len(report.failures) == 3


def test_a_refusal_after_a_write_fails():
    def step(**kw):
        kw["g_cache"][...] = 0.0
        kda_harness.validate(**kw)

    report = kda_harness.check(step, suites="contract", n=3)
    assert len(report.failures) == 3
    assert all("wrote to its outputs" in f.detail for f in report.failures)


def test_an_exception_on_a_valid_call_is_a_failure_not_a_crash():
    def step(**kw):
        raise TypeError("unexpected keyword")

    report = kda_harness.check(step, suites="rollout", n=2)
    assert [f.detail for f in report.failures] == ["refused a valid call: TypeError: unexpected keyword"] * 2


@pytest.fixture(scope="module")
def reference_plugin():
    path = os.environ.get("KDA_REFERENCE_PLUGIN")
    if not path:
        pytest.skip("KDA_REFERENCE_PLUGIN is not set (ctest sets it to the build's reference plugin)")
    return kda_harness.load_plugin(path)


def test_a_plugin_library_passes_as_a_callable(reference_plugin):
    assert reference_plugin.name == "reference" and reference_plugin.kda_profile == "helion"
    report = kda_harness.check(reference_plugin, n=12)
    assert report.passed, str(report)


def test_a_plugin_wrapper_that_corrupts_one_row_fails(reference_plugin):
    report = kda_harness.check(corrupting_one_row(reference_plugin), suites="rollout", n=6)
    assert len(report.failures) == 6
    assert all("row 0 " in f.detail for f in report.failures)


def test_a_write_outside_the_footprint_fails():
    def step(**kw):
        numpy_step.replayssm_step(**kw)
        kw["mixed_qkv"][0, 0] = 0.0  # an input

    report = kda_harness.check(step, suites="rollout", n=4)
    assert len(report.failures) == 4
    assert all("token 0: wrote mixed_qkv element [0, 0], outside the step's footprint" == f.detail
               for f in report.failures)


def test_a_write_to_an_unnamed_slot_fails():
    def step(**kw):
        numpy_step.replayssm_step(**kw)
        named = set(np.asarray(kw["ssm_state_indices"]).tolist())
        free = [s for s in range(kw["initial_state"].shape[0]) if s not in named]
        if free:
            kw["initial_state"][free[0]] = 0.0

    report = kda_harness.check(step, suites="rollout", n=12)
    assert report.failures
    assert all("wrote initial_state element [" in f.detail for f in report.failures)


NARROW = kda_harness.Envelope(index_dtypes=("int32",), out_dtypes=("float32", "bfloat16"), k=(1, 16), strided=False)


def refusing_outside_narrow(**kw):
    """The numpy step, declaring NARROW and refusing what lies outside it (after the
    contract's own checks, whose messages come first)."""
    kda_harness.validate(**kw)
    contiguous = all(t.flags.c_contiguous for t in kw.values() if isinstance(t, np.ndarray))
    if kw["initial_state"].shape[-1] > 16 or kw["ssm_state_indices"].dtype != np.int32 or not contiguous \
            or kw["out"].dtype == np.float16:
        raise ValueError("outside this kernel's envelope")
    numpy_step.replayssm_step(**kw)


def test_a_backend_is_checked_inside_its_envelope_and_refuses_outside():
    report = kda_harness.check(refusing_outside_narrow, envelope=NARROW, n=16)
    assert report.passed, str(report)
    moved = {c.replay.split("outside the envelope: ")[1] for c in report.cases if c.suite == "envelope"}
    assert moved >= {"K = 32", "ssm_state_indices int64", "strided (envelope) layouts", "out float16"}


def test_a_backend_that_computes_outside_its_envelope_fails():
    report = kda_harness.check(numpy_step.replayssm_step, envelope=NARROW, suites="envelope", n=4)
    assert len(report.failures) == 4
    assert all(f.detail.startswith("accepted a call outside its envelope") for f in report.failures)


def test_a_replay_line_reruns_that_case_alone():
    failing = kda_harness.check(numpy_step.replayssm_step_planted_bug, suites="rollout", n=ROLLOUTS).failures[0]
    again = kda_harness.check(numpy_step.replayssm_step_planted_bug, config=failing.replay)
    assert [(c.passed, c.replay, c.detail) for c in again.cases] == [(False, failing.replay, failing.detail)]
    assert kda_harness.check(numpy_step.replayssm_step, config=failing.replay).passed
