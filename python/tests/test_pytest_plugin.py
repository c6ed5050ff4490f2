"""The pytest plugin on the numpy step and its planted-bug copy, in a child pytest: one test
per case, the planted bug's failures exactly its bounded-gate cases, each with its replay line."""
import importlib.metadata
import re
from pathlib import Path

import pytest

import kda_harness

HERE = Path(__file__).resolve().parent
N = 12


def run(pytester, monkeypatch, backend, *extra):
    # The plugin is named explicitly, so the child runs it whether or not the package is
    # installed (and not twice when it is).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(HERE) + ":" + str(HERE.parent))
    return pytester.runpytest_subprocess("-p", "kda_harness.pytest_plugin", "-p", "no:cacheprovider",
                                         "--kda-backend", backend, "--kda-n", str(N), "-rf", *extra)


def test_the_numpy_step_passes_every_case(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step")
    result.assert_outcomes(passed=4 * N)  # rollout, truth, contract, envelope


def test_the_planted_bug_fails_exactly_its_cases(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step:replayssm_step_planted_bug", "--kda-suites", "rollout")
    lines = [kda_harness.config_line(i) for i in range(N)]
    bounded = [i for i, line in enumerate(lines) if "lb=none" not in line]
    assert 0 < len(bounded) < N
    result.assert_outcomes(passed=N - len(bounded), failed=len(bounded))
    output = result.stdout.str()
    failed = sorted(int(i) for i in re.findall(r"^FAILED kda::rollout\[(\d+)\]", output, re.M))
    assert failed == bounded
    for i in bounded:
        assert f'replay: kda-harness case "{lines[i]}"' in output
        assert f'kda_harness.check(step_fn, config="{lines[i]}")' in output


def test_a_packed_decode_step_runs_as_its_operator(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_packed_step:packed_decode_step", "--kda-op", "kda_packed_decode")
    result.assert_outcomes(passed=4 * N)
    result = run(pytester, monkeypatch, "numpy_packed_step:packed_decode_step_beta_rounded", "--kda-op",
                 "kda_packed_decode", "--kda-suites", "truth")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) > 0
    assert "--op kda_packed_decode" in result.stdout.str()


def test_a_bad_backend_spec_is_a_usage_error(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "numpy_step")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_the_installed_package_registers_the_plugin():
    try:
        dist = importlib.metadata.distribution("kda-harness")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("kda-harness is not pip-installed here (scripts/setup-python.sh installs it)")
    entry = [e for e in dist.entry_points if e.group == "pytest11"]
    assert [(e.name, e.value) for e in entry] == [("kda_harness", "kda_harness.pytest_plugin")]
