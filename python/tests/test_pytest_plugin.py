"""The pytest plugin on the numpy step and its planted-bug copy, in a child pytest: one test
per case, the planted bug's failures exactly its bounded-gate cases, each with its replay lines;
ids selectable with -k, right collection counts, markers, usage errors, the kda_case fixture,
--lf and xdist."""
import importlib.metadata
import re
import shlex
from pathlib import Path

import pytest

import kda_harness

HERE = Path(__file__).resolve().parent
N = 12
EVERY_SUITE = ("--kda-suites", ",".join(kda_harness.suites()))  # the default leaves kernel-contract out


def run(pytester, monkeypatch, backend, *extra, cache=False):
    # The plugin is named explicitly, so the child runs it whether or not the package is
    # installed (and not twice when it is).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(HERE) + ":" + str(HERE.parent))
    backend_args = ("--kda-backend", backend) if backend else ()
    return pytester.runpytest_subprocess("-p", "kda_harness.pytest_plugin", *(() if cache else ("-p", "no:cacheprovider")),
                                         *backend_args, "--kda-n", str(N), "-rf", *extra)


def kernel_lines():
    """The replay lines of the kernel suite's cases of seed 1."""
    return [kda_harness.suite_case_line("kernel", i) for i in range(N)]


def bounded_gate_cases():
    """The kernel cases of seed 1 the planted bug (numpy_step) changes: those with the bounded gate."""
    return [i for i, line in enumerate(kernel_lines()) if "lb=none" not in line]


def test_the_numpy_step_passes_every_case(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step", *EVERY_SUITE)
    result.assert_outcomes(passed=3 * N, skipped=N)  # kernel, kernel-truth, kernel-contract; envelope: nothing outside


def test_the_planted_bug_fails_exactly_its_cases(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step_planted_bug", "--kda-suites", "kernel")
    replays = kernel_lines()
    bounded = bounded_gate_cases()
    assert 0 < len(bounded) < N
    result.assert_outcomes(passed=N - len(bounded), failed=len(bounded))
    output = result.stdout.str()
    failed = sorted(int(i) for i in re.findall(r"^FAILED kda::kda_kernel\[seed-1-case-(\d+)\]", output, re.M))
    assert failed == bounded
    for i in bounded:
        config, _, call = replays[i].partition(" | ")
        # A case that is its config's rollout reruns by its config line, one that changes the call by its index.
        python = (f'kda_harness.check(numpy_step.replayssm_step_planted_bug, config="{config}")' if not call else
                  f'kda_harness.check(numpy_step.replayssm_step_planted_bug, suites="kernel", seed=1, first={i}, n=1)')
        rerun = (f"rerun on your kernel: pytest --kda-backend numpy_step:replayssm_step_planted_bug --kda-suites kernel "
                 f"--kda-first {i} --kda-n 1 -k 'kda_kernel[seed-1-case-{i}]'\n"
                 f"  or from Python: {python}\n"
                 f'replay on the CPU reference: kda-harness case "{config}"{f"  ({call})" if call else ""}\n')
        assert rerun in output


def test_a_failures_rerun_line_runs_that_case_alone(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step_planted_bug", "--kda-suites", "kernel-truth")
    output = result.stdout.str()
    command = re.search(r"^rerun on your kernel: (pytest .*)$", output, re.M).group(1)
    detail = re.search(r"^kernel-truth case (\d+) \(seed 1\) failed: (.*)$", output, re.M)
    args = shlex.split(command)[1:]
    args.remove("--kda-n")  # run() gives its own --kda-n; this line's must win, so it goes last
    args.remove("1")
    again = run(pytester, monkeypatch, None, *args, "--kda-n", "1")
    again.assert_outcomes(failed=1)
    assert f"kernel-truth case {detail.group(1)} (seed 1) failed: {detail.group(2)}" in again.stdout.str()


def test_collection_counts_and_selection(pytester, monkeypatch):
    backend = "numpy_step:replayssm_step"
    listed = run(pytester, monkeypatch, backend, *EVERY_SUITE, "--co", "-q").stdout.str()
    assert f"{4 * N} tests collected" in listed
    assert len(re.findall(r"^kda::kda_(kernel|kernel_truth|kernel_contract|envelope)\[seed-1-case-\d+\]$", listed, re.M)) == 4 * N
    selected = run(pytester, monkeypatch, backend, *EVERY_SUITE, "--co", "-q", "-k", "kda_kernel_truth").stdout.str()
    assert f"{N}/{4 * N} tests collected ({3 * N} deselected)" in selected
    one = run(pytester, monkeypatch, backend, *EVERY_SUITE, "-k", "kda_kernel_truth[seed-1-case-1]")
    one.assert_outcomes(passed=1, deselected=4 * N - 1)
    run(pytester, monkeypatch, backend, *EVERY_SUITE, "-m", "kda_kernel_contract").assert_outcomes(passed=N, deselected=3 * N)
    run(pytester, monkeypatch, backend, *EVERY_SUITE, "-m", "kda").assert_outcomes(passed=3 * N, skipped=N)  # the envelope suite: nothing outside


def test_the_markers_are_registered(pytester, monkeypatch):
    output = run(pytester, monkeypatch, None, "--markers").stdout.str()
    for marker in ("kda", "kda_kernel", "kda_kernel_truth", "kda_kernel_contract", "kda_envelope"):
        assert f"@pytest.mark.{marker}:" in output
    # --strict-markers accepts them on a hand-written test.
    pytester.makepyfile(test_marked="import pytest\n@pytest.mark.kda_kernel_truth\ndef test_x():\n    pass\n")
    run(pytester, monkeypatch, None, "--strict-markers").assert_outcomes(passed=1)


def test_the_kda_case_fixture_gives_one_test_per_case(pytester, monkeypatch):
    pytester.makepyfile(test_mine='''
        import numpy as np
        import kda_harness
        import numpy_step

        def test_my_kernel_matches_the_reference(kda_case):
            mine, reference = kda_case.kwargs(), kda_harness.case(kda_case.config).kwargs()
            numpy_step.replayssm_step(**mine)
            kda_harness.reference_step(**reference)
            assert np.allclose(mine["out"], reference["out"], rtol=0.1, atol=0.1, equal_nan=True), kda_case.config
    ''')
    listed = run(pytester, monkeypatch, None, "--co", "-q").stdout.str()
    assert [f"test_mine.py::test_my_kernel_matches_the_reference[seed-1-case-{i}]" for i in range(N)] == \
        re.findall(r"^test_mine\.py::\S+$", listed, re.M)
    run(pytester, monkeypatch, None, "-m", "kda").assert_outcomes(passed=N)


def test_last_failed_reruns_the_failed_cases(pytester, monkeypatch):
    backend = "numpy_step:replayssm_step_planted_bug"
    bounded = bounded_gate_cases()
    run(pytester, monkeypatch, backend, "--kda-suites", "kernel", cache=True).assert_outcomes(
        passed=N - len(bounded), failed=len(bounded))
    again = run(pytester, monkeypatch, backend, "--kda-suites", "kernel", "--lf", cache=True)
    again.assert_outcomes(failed=len(bounded), deselected=N - len(bounded))
    assert "run-last-failure: rerun previous" in again.stdout.str()


def test_xdist_runs_the_cases(pytester, monkeypatch):
    pytest.importorskip("xdist", reason="pytest-xdist is not installed")
    bounded = bounded_gate_cases()
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step_planted_bug", "--kda-suites", "kernel",
                 "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=N - len(bounded), failed=len(bounded))
    failed = sorted(int(i) for i in re.findall(r"FAILED kda::kda_kernel\[seed-1-case-(\d+)\]", result.stdout.str()))
    assert failed == bounded


def test_a_packed_decode_step_runs_as_its_operator(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_packed_step:packed_decode_step", "--kda-op", "kda_packed_decode")
    result.assert_outcomes(passed=2 * N, skipped=N)  # kernel, kernel-truth; the envelope suite: nothing outside
    result = run(pytester, monkeypatch, "numpy_packed_step:packed_decode_step_beta_rounded", "--kda-op",
                 "kda_packed_decode", "--kda-suites", "kernel-truth")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) > 0
    assert "op=kda_packed_decode " in result.stdout.str()  # the replay lines name the operator


@pytest.mark.parametrize("spec, message", [
    ("numpy_step", "--kda-backend wants MODULE:FUNCTION or plugin:PATH, not 'numpy_step'"),
    ("numpy_step:nope", "--kda-backend numpy_step:nope: numpy_step has no attribute 'nope'"),
    ("no_such_module:step", "--kda-backend no_such_module:step: ModuleNotFoundError: No module named 'no_such_module'"),
    ("numpy_step:np", "--kda-backend numpy_step:np: module is not callable"),
    ("plugin:/nonexistent/libnone.so", "--kda-backend plugin:/nonexistent/libnone.so: OSError: "),
])
def test_a_bad_backend_is_a_usage_error(pytester, monkeypatch, spec, message):
    result = run(pytester, monkeypatch, spec)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {message}" in result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_an_unknown_suite_is_a_usage_error(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step", "--kda-suites", "kernel,speed")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("ERROR: --kda-suites: unknown suite 'speed' (known: kernel, kernel-truth, envelope, kernel-contract)"
            in result.stderr.str())
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step", "--kda-suites", "rollout")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --kda-suites: unknown suite 'rollout': that suite is now named 'kernel'" in result.stderr.str()


def test_the_installed_package_registers_the_plugin():
    try:
        dist = importlib.metadata.distribution("kda-harness")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("kda-harness is not pip-installed here (scripts/setup-python.sh installs it)")
    entry = [e for e in dist.entry_points if e.group == "pytest11"]
    assert [(e.name, e.value) for e in entry] == [("kda_harness", "kda_harness.pytest_plugin")]
