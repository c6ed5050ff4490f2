"""What a kernel declares of runtime-invalid rows (Envelope.invalid_rows): SGLang's contract
("none", the default) is never fed them and still meets padding at both ends of a batch;
"raise" is; a kernel that wraps padding to the last slot fails. Production shapes (model=) and
replay against the truth by line."""
import numpy as np
import pytest

import kda_harness
import numpy_step


def _wrapping_padding(**kw):
    """numpy_step with slot -1 read as the pool's last slot (an index that wraps)."""
    slots = kw["initial_state"].shape[0]
    idx = np.asarray(kw["ssm_state_indices"])
    return numpy_step.replayssm_step(**{**kw, "ssm_state_indices": np.where(idx < 0, slots - 1, idx).astype(idx.dtype)})


def test_only_a_kernel_that_claims_invalid_rows_is_fed_them():
    lines = [kda_harness.suite_case_line("kernel", i) for i in range(20)]
    assert not [line for line in lines if " | " in line and "outside the envelope" not in line]
    claimed = [kda_harness.suite_case_line("kernel", i, envelope=kda_harness.Envelope(invalid_rows="raise"))
               for i in range(20)]
    assert len([line for line in claimed if "past the ring" in line or "past the pool" in line]) == 4


def test_padding_at_both_ends_in_one_case_in_four():
    lines = [kda_harness.suite_case_line("kernel-truth", i) for i in range(40)]
    padded = [i for i, line in enumerate(lines) if "padends=1" in line]
    assert padded and all(i % 4 == 3 for i in padded)


def test_a_kernel_that_claims_raise_must_refuse_them():
    report = kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=10,
                               envelope=kda_harness.Envelope(invalid_rows="raise"))
    assert report.passed, str(report)
    assert "this case: at token" in report.cases[4].detail, report.cases[4].detail


def test_padding_read_as_the_last_slot_fails_within_ten_cases():
    report = kda_harness.check(_wrapping_padding, suites="kernel,kernel-truth", n=10)
    assert {c.suite for c in report.failures} == {"kernel", "kernel-truth"}, str(report)


def test_the_probe_reports_and_never_fails():
    report = kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=5, probe_invalid_indices=True)
    assert report.passed, str(report)
    assert "probe: " in report.cases[4].detail and "refused the call" in report.cases[4].detail


def test_a_model_draws_its_heads_and_server_batches():
    lines = [kda_harness.suite_case_line("kernel", i, model="kimi-linear-48b:tp=8") for i in range(8)]
    for line in lines:
        assert " H=4 HV=4 K=128 V=128 " in line, line
    assert int(lines[0].split()[0].split("=")[1]) >= 64  # B of one case in four
    with pytest.raises(ValueError, match="gate per head"):
        kda_harness.suite_case_line("kernel", 0, model="qwen3-next-80b")


def test_a_kernel_truth_line_replays_against_the_truth():
    line = kda_harness.suite_case_line("kernel-truth", 2)
    report = kda_harness.check(numpy_step.replayssm_step, config=line, suites="kernel-truth")
    assert report.passed, str(report)
    assert [c.suite for c in report.cases] == ["kernel-truth"]
    assert "vs truth" in report.cases[0].detail
    bad = kda_harness.check(numpy_step.replayssm_step_planted_bug, config=line.replace("lb=none", "lb=-1"),
                            suites="kernel-truth")
    assert not bad.passed
    assert 'suites="kernel-truth"' in bad.failures[0].rerun and "config=" in bad.failures[0].rerun
