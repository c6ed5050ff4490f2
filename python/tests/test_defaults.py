"""One table of defaults (kda_harness.defaults(), the engine's engine/driver/defaults.hpp) and every
entry point run with nothing named: the command line (`kda-harness check`), the C library
(kda_check_plugin), check() and the pytest plugin run the same suites, seed and operator; a
plugin is judged as the operator it implements everywhere; a step of another operator without
--kda-op is told which option is missing, not left to a TypeError."""
import ctypes
import json
import os
import subprocess
from pathlib import Path

import pytest

import kda_harness
from kda_harness import _abi, checking

HERE = Path(__file__).resolve().parent
CLI = os.environ.get("KDA_HARNESS_CLI")
PACKED = os.environ.get("KDA_CPU_PACKED_DECODE_PLUGIN")
needs_cli = pytest.mark.skipif(not CLI, reason="KDA_HARNESS_CLI is not set (ctest sets it to the build's kda-harness)")
needs_packed = pytest.mark.skipif(not PACKED, reason="KDA_CPU_PACKED_DECODE_PLUGIN is not set (ctest sets it)")


def cli(*args):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # the CLI carries its own sanitizer runtime
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300, env=env)


def test_the_table_is_the_libraries_and_pythons():
    d = kda_harness.defaults()
    assert d["op"] == kda_harness.operators()[0] == "kda_replayssm"
    assert d["suites"].split(",") == [s for s in kda_harness.suites() if s != "kernel-contract"]
    assert d["cli_suites"].split(",") == ["kernel", "kernel-truth", "golden-kernel", "envelope"]
    assert (d["seed"], d["profile"], d["cases"]) == (1, "helion", 20)
    assert checking.suite_names(None) == checking.suite_names("") == d["suites"].split(",")


def test_check_runs_the_tables_suites_cases_and_seed():
    def refuses(**kw):
        raise RuntimeError("no")
    d = kda_harness.defaults()
    report = kda_harness.check(refuses)
    assert [c.suite for c in report.cases][::d["cases"]] == d["suites"].split(",")
    assert len(report.cases) == len(d["suites"].split(",")) * d["cases"]
    kernel = [c for c in report.cases if c.suite == "kernel"]
    assert [c.replay for c in kernel[:3]] == [kda_harness.suite_case_line("kernel", i, seed=d["seed"]) for i in range(3)]


@needs_packed
def test_the_c_librarys_default_suites_are_the_tables():
    plugin = kda_harness.load_plugin(PACKED)
    options = _abi.KdaCheckOptions(suites=None, seed=1, first=0, count=1, work_budget=0.0, profile=-1, config=None,
                                   restriction=None, probe_invalid_rows=0, model=None)
    report = checking._run(checking.CallablePlugin(plugin, "packed", kda_harness.Envelope(), 0, "numpy", None,
                                                   plugin.kda_op), options)
    assert [c["suite"] for c in report["cases"]] == kda_harness.defaults()["suites"].split(",")


@needs_cli
@needs_packed
def test_the_command_line_runs_the_tables_suites_seed_and_the_plugins_operator(tmp_path):
    r = cli("check", "--backend", f"plugin:{PACKED}", "--scale", "0.001", "--no-progress", "--json", "-")
    assert r.returncode == 0, r.stdout + r.stderr
    report, d = json.loads(r.stdout), kda_harness.defaults()
    assert [s["suite"] for s in report["suites"]] == d["cli_suites"].split(",")
    assert report["options"]["op"] == "kda_packed_decode"  # the plugin's own operator, no --op given
    assert report["options"]["seed"] == d["seed"]
    assert report["options"]["gpu_work_budget"] == d["cli_work_budget"]
    # Python and pytest judge it as its operator too.
    assert kda_harness.check(kda_harness.load_plugin(PACKED), suites="kernel", n=2).passed


@needs_cli
@needs_packed
def test_every_subcommand_with_a_plugin_takes_its_operator_unless_op_says_otherwise():
    line = "B=3 H=2 HV=4 K=16 V=16 L=1 slots=5 steps=3 seed=5"
    for args in (["check", "--suites", "kernel", "--cases", "kernel=2", "--no-progress"], ["case", line],
                 ["golden", "verify"], ["sensitivity", "--cases", "2", "--tensor", "out", "--dtype", "f32"]):
        r = cli(*args, "--backend", f"plugin:{PACKED}")
        assert "implements kda_packed_decode, not" not in r.stderr, (args, r.stderr)
        assert r.returncode in (0, 1), (args, r.stdout + r.stderr)
        refused = cli(*args, "--backend", f"plugin:{PACKED}", "--op", "kda_replayssm")
        assert refused.returncode == 2 and "implements kda_packed_decode, not kda_replayssm" in refused.stderr, \
            (args, refused.stdout + refused.stderr)


def run_pytest(pytester, monkeypatch, *args):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(HERE) + ":" + str(HERE.parent))
    return pytester.runpytest_subprocess("-p", "kda_harness.pytest_plugin", "-p", "no:cacheprovider", *args)


def test_pytest_collects_the_tables_suites_cases_and_seed(pytester, monkeypatch):
    listed = run_pytest(pytester, monkeypatch, "--kda-backend", "numpy_step:replayssm_step", "--co", "-q").stdout.str()
    d = kda_harness.defaults()
    expected = [f"kda::kda_{s.replace('-', '_')}[seed-{d['seed']}-case-{i}]" for s in d["suites"].split(",")
                for i in range(d["cases"])]
    assert [line for line in listed.splitlines() if line.startswith("kda::")] == expected


@needs_packed
def test_pytest_judges_a_plugin_as_its_operator(pytester, monkeypatch):
    result = run_pytest(pytester, monkeypatch, "--kda-backend", f"plugin:{PACKED}", "--kda-suites", "kernel",
                        "--kda-n", "2")
    result.assert_outcomes(passed=2)


def test_a_step_of_another_operator_without_kda_op_is_told_the_option(pytester, monkeypatch):
    # Its signature shows it: a usage error naming --kda-op before any test runs.
    args = ", ".join(kda_harness._operators.arguments("kda_packed_decode"))
    pytester.makepyfile(explicit_packed=f"import numpy_packed_step\n"
                                        f"def step(*, {args}):\n"
                                        f"    numpy_packed_step.packed_decode_step(**locals())\n")
    monkeypatch.syspath_prepend(str(pytester.path))
    result = run_pytest(pytester, monkeypatch, "--kda-backend", "explicit_packed:step", "--kda-n", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "pass op='kda_packed_decode' (pytest: --kda-op kda_packed_decode)" in result.stderr.str()
    # Behind **kwargs it cannot be told beforehand: the failure says what the step was called as.
    result = run_pytest(pytester, monkeypatch, "--kda-backend", "numpy_packed_step:packed_decode_step",
                        "--kda-suites", "kernel", "--kda-n", "1")
    result.assert_outcomes(failed=1)
    assert "unexpected keyword argument" in result.stdout.str()
    assert "the step was called with kda_replayssm's arguments" in result.stdout.str()
    assert "--kda-op" in result.stdout.str()
    # With --kda-op it passes.
    run_pytest(pytester, monkeypatch, "--kda-backend", "explicit_packed:step", "--kda-op", "kda_packed_decode",
               "--kda-suites", "kernel", "--kda-n", "1").assert_outcomes(passed=1)


@needs_cli
@needs_packed
def test_kernel_contract_reaches_every_error_input_by_default_everywhere(pytester, monkeypatch):
    d = kda_harness.defaults()
    for op in kda_harness.operators():
        counts = d["suite_cases"][op]
        assert counts["kernel-contract"] >= d["cases"], op
        assert all(n == d["cases"] for suite, n in counts.items() if suite != "kernel-contract"), op
    n = d["suite_cases"]["kda_packed_decode"]["kernel-contract"]
    assert n > d["cases"]  # more documented error inputs than 20: V22 lies past case 19
    # Python: every one, V22 included.
    report = kda_harness.check(kda_harness.load_plugin(PACKED), suites="kernel-contract")
    assert len(report.cases) == n and report.passed, str(report)
    assert any("error input V22" in c.replay for c in report.cases)
    # The command line: at least as many, whatever --scale leaves of its default.
    r = cli("check", "--backend", f"plugin:{PACKED}", "--suites", "kernel-contract", "--scale", "0.001", "--no-progress",
            "--json", "-")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [s["cases"] for s in json.loads(r.stdout)["suites"]] == [n]
    # pytest: the same cases collected.
    listed = run_pytest(pytester, monkeypatch, "--kda-backend", f"plugin:{PACKED}", "--kda-suites", "kernel-contract",
                        "--co", "-q").stdout.str()
    assert len([line for line in listed.splitlines() if line.startswith("kda::kda_kernel_contract[")]) == n
