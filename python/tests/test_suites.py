"""One vocabulary: check()'s suites are the CLI's backend suites, by the CLI's names, from the
engine's one table (engine/driver/suites.hpp), and a former name is refused with the new one."""
import os
import subprocess

import pytest

import kda_harness
import numpy_step
from kda_harness import pytest_plugin

CLI = os.environ.get("KDA_HARNESS_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="KDA_HARNESS_CLI is not set (ctest sets it to the build's kda-harness)")


def cli(*args):
    # The CLI carries its own sanitizer runtime where it has one: the runtime preloaded into this
    # interpreter under the sanitizer job (LD_PRELOAD) must not reach it.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60, env=env)


@needs_cli
def test_pythons_suites_are_the_clis_backend_suites_by_name():
    rows = [line.split()[:2] for line in cli("check", "--list").stdout.splitlines()]
    backend = [name for name, judges in rows if judges == "backend"]
    # Every suite the CLI runs on a backend, but the golden set's (whose files Python has not).
    assert [s for s in backend if s != "golden-kernel"] == kda_harness.suites()
    assert list(pytest_plugin.SUITES) == kda_harness.suites()
    help_text = " ".join(cli("check", "--help").stdout.split())
    assert all(name in help_text for name, _ in rows)


def never_called(**kw):
    raise AssertionError("a refused suite name ran a case")


@pytest.mark.parametrize("old, new", [("rollout", "kernel"), ("truth", "kernel-truth")])
def test_a_former_name_is_refused_naming_the_new_one(old, new):
    message = f"unknown suite '{old}': that suite is now named '{new}'"
    with pytest.raises(ValueError, match=message):
        kda_harness.check(never_called, suites=f"{new},{old}", n=1)
    if CLI:
        r = cli("check", "--suites", old)
        assert r.returncode == 2 and message in r.stderr


def test_a_suite_of_the_harness_itself_is_refused_naming_the_backend_one():
    with pytest.raises(ValueError, match="suite 'contract' judges the harness itself, not a backend: run it with "
                                         "`kda-harness check --suites contract`; a backend's refusals of the error "
                                         "inputs are the suite 'kernel-contract'"):
        kda_harness.check(never_called, suites="contract", n=1)
    with pytest.raises(ValueError, match="suite 'golden-kernel' needs the golden set's files"):
        kda_harness.check(never_called, suites="golden-kernel", n=1)


def test_every_suite_runs_by_its_name():
    report = kda_harness.check(numpy_step.replayssm_step, suites=kda_harness.suites(), n=2)
    assert [c.suite for c in report.cases] == [s for s in kda_harness.suites() for _ in range(2)]
    assert report.passed, str(report)
    # Each case's replay line is the one planned without running it.
    assert [c.replay for c in report.cases] == [kda_harness.suite_case_line(c.suite, c.index) for c in report.cases]
