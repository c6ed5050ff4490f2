"""CheckReport as a kernel author reads it: every failure whole (str and repr alike), the line
that reruns the author's kernel first, the CPU reference's `kda-harness case` line second, the
kernel's own traceback, and raise_if_failed() carrying all of it."""
import re
import textwrap
import unittest

import pytest

import kda_harness
import numpy_step

N = 12


def planted_failures(suites="kernel", n=N):
    report = kda_harness.check(numpy_step.replayssm_step_planted_bug, suites=suites, n=n)
    assert report.failures, "the planted bug fails some of these cases"
    return report


def test_a_report_prints_each_cause_of_failure_whole():
    """str(report): each cause's first failure whole (never cut short), after its count; every
    failure stays whole in report.failures."""
    report = planted_failures()
    text = str(report)
    assert repr(report) == text
    firsts = [cases[0] for _, _, cases in report.failure_groups()]
    for f in report.failures:
        assert repr(f) == str(f)
        assert f.cause
        assert (f"[kernel {f.index}] FAIL: {f.detail}" in text) == (f in firsts)
    assert "..." not in text


def test_the_first_replay_line_reruns_the_authors_kernel():
    report = planted_failures("kernel,kernel-truth")
    for f in report.failures:
        rerun, reference = f.replay_lines()
        assert rerun.startswith("kda_harness.check(numpy_step.replayssm_step_planted_bug, ")
        assert reference.startswith(f'kda-harness case "{f.config}"')
        text = str(f)
        assert text.index(rerun) < text.index(reference)
        # The first line, run as shown, reruns that case on the kernel and fails it the same way.
        again = eval(rerun, {"kda_harness": kda_harness, "numpy_step": numpy_step})
        assert [(c.suite, c.passed, c.config, c.detail) for c in again.cases] == [
            (f.suite, False, f.config, f.detail)]


def test_a_numeric_failure_reads_as_assert_closes():
    report = planted_failures("kernel,kernel-truth")
    for f in report.failures:
        # How many blocks are off, the relative figure against what is allowed, where, and the
        # greatest absolute difference there with the values expected and found.
        assert re.search(r"Mismatched blocks: \d+ / \d+ \(\d+\.\d%\); greatest relative difference \(normwise, by "
                         r"block\): \S+ \(up to \S+ allowed\) at .*(token|row) \d+.*; there the greatest absolute "
                         r"difference: \S+ at index \(\d+, \d+, \d+, \d+\) \(expected \S+, got \S+\)", f.detail), f.detail


def test_a_rerun_line_keeps_the_arguments_that_change_the_case():
    envelope = kda_harness.Envelope(index_dtypes=("int32",), k=(1, 16), strided=False)
    report = kda_harness.check(numpy_step.replayssm_step_planted_bug, suites="kernel-truth", n=N, seed=5,
                               envelope=envelope, profile="helion")
    f = report.failures[0]
    # A rollout reruns by its config line against its suite's comparison (the line is the case:
    # no envelope draws it); the profile still judges it.
    assert f.rerun == (f'kda_harness.check(numpy_step.replayssm_step_planted_bug, config="{f.replay}", '
                       f'suites="kernel-truth", profile="helion")')
    again = eval(f.rerun, {"kda_harness": kda_harness, "numpy_step": numpy_step})
    assert [(c.suite, c.passed, c.detail) for c in again.cases] == [("kernel-truth", False, f.detail)]


def index_past_the_end(out):
    return out[out.shape[0]]  # an IndexError in the kernel's own helper


def step_with_an_index_error(**kw):
    kda_harness.validate(**kw)
    index_past_the_end(kw["out"])


def test_the_kernels_traceback_is_kept():
    report = kda_harness.check(step_with_an_index_error, suites="kernel", n=2)
    assert len(report.failures) == 2
    for f in report.failures:
        assert f.traceback.startswith("Traceback (most recent call last):")
        assert "in step_with_an_index_error" in f.traceback and "in index_past_the_end" in f.traceback
        assert "return out[out.shape[0]]" in f.traceback
        assert f.traceback.rstrip().endswith("IndexError: index 2 is out of bounds for axis 0 with size 2") or \
            "IndexError: index" in f.traceback.splitlines()[-1]
        # How the harness called the kernel is not the kernel's traceback.
        assert "_on_step" not in f.traceback and "kda_harness/checking.py" not in f.traceback
        assert textwrap.indent(f.traceback.rstrip("\n"), "      ") in str(report)


def test_a_passing_case_keeps_no_traceback():
    # The contract suite's refusals are ValueErrors the kernel raises as it must.
    report = kda_harness.check(numpy_step.replayssm_step, suites="kernel-contract", n=3)
    assert report.passed and all(not c.traceback and not c.rerun for c in report.cases)


def test_raise_if_failed_carries_every_failure():
    report = kda_harness.check(step_with_an_index_error, suites="kernel,kernel-truth", n=2)
    with pytest.raises(AssertionError) as raised:
        report.raise_if_failed()
    message = str(raised.value)
    assert message == str(report)
    # Grouped by cause: each group's first failure in full, the group's count before it.
    groups = report.failure_groups()
    assert sum(len(cases) for _, _, cases in groups) == len(report.failures) == 4
    assert message.count("the kernel raised:") == len(groups) and message.count("rerun on your kernel:") == len(groups)
    for suite, cause, cases in groups:
        assert f"[{suite}] {len(cases)} failed case(s) of one cause: {cause}" in message
    assert "  kernel: 2 cases, 0 passed, 2 failed" in message and "  kernel-truth: 2 cases, 0 passed, 2 failed" in message
    passing = kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=2)
    assert passing.raise_if_failed() is passing


def test_a_plugin_library_reruns_by_its_path(cpu_plugin):
    report = kda_harness.check(cpu_plugin, suites="envelope", n=1, envelope=kda_harness.Envelope(k=(1, 8)))
    f = report.failures[0]
    assert f.rerun.startswith(f'kda_harness.check(kda_harness.load_plugin("{cpu_plugin.path}"), suites="envelope"')


def test_a_suite_with_nothing_to_test_is_skipped_not_passed():
    # The default envelope is the whole contract: the envelope suite has no call to make.
    report = kda_harness.check(numpy_step.replayssm_step, suites="envelope", n=3)
    assert [c.skipped for c in report.cases] == [True, True, True]
    assert str(report).startswith(f"{report.backend}: 0 passed, 0 failed, 3 skipped (envelope: ")
    assert str(report).splitlines()[0].endswith("; nothing judged")
    # Nothing judged is no pass: raise_if_failed() skips the test that asked, saying why.
    assert (report.judged, report.passed) == (0, False)
    with pytest.raises(unittest.SkipTest, match="^nothing judged: .*envelope: "):
        report.raise_if_failed()
    # Declared K <= 64: calls past it exist, are made, and this step (which computes them) fails.
    declared = kda_harness.check(numpy_step.replayssm_step, suites="envelope", n=3,
                                 envelope=kda_harness.Envelope(k=(1, 64)))
    assert not any(c.skipped for c in declared.cases) and len(declared.failures) == 3, str(declared)
