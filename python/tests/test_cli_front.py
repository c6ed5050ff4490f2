"""The package's `kda-harness` (console script) and `python -m kda_harness`: the one command
line, the C++ program run in place of the interpreter, with its subcommands, output and exit
codes; kda_harness.paths names where the program is."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = os.environ.get("KDA_HARNESS_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="KDA_HARNESS_CLI is not set (ctest sets it to the build's kda-harness)")
HERE = Path(__file__).resolve().parent


def front(*args, env=None, **popen):
    env = {k: v for k, v in (env or os.environ).items() if k != "LD_PRELOAD"}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    popen.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "kda_harness", *args], stderr=subprocess.PIPE, text=True, env=env,
                          timeout=120, **popen)


@needs_cli
def test_the_front_is_the_programs_command_line():
    # The program carries its own sanitizer runtime in the sanitizer job: no preloaded one.
    program = subprocess.run([CLI, "--help-all"], capture_output=True, text=True,
                             env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
    through = front("--help-all")
    assert through.returncode == program.returncode == 0
    assert through.stdout == program.stdout
    for sub in ("check", "validate", "errors", "case", "golden", "mutants", "completion", "emulate", "sensitivity"):
        assert front(sub, "--help").returncode == 0, sub  # the old Python command had check alone


@needs_cli
def test_exit_codes_and_messages_pass_through():
    r = front("check", "--backend", "plugin:libm.so.6", "--no-progress")
    assert r.returncode == 2 and "kda_plugin_describe" in r.stderr and "Traceback" not in r.stderr, r.stderr
    with open("/dev/full", "w") as full:
        r = front("errors", stdout=full)
    assert r.returncode == 2 and "cannot write to standard output" in r.stderr, r.stderr


def test_a_program_that_cannot_run_is_a_message_not_a_traceback(tmp_path):
    r = front("--version", env=dict(os.environ, KDA_HARNESS_CLI=str(tmp_path / "none")))
    assert r.returncode == 2 and "kda-harness: cannot run" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_paths_refuses_an_unknown_name():
    env = dict(os.environ, PYTHONPATH=str(HERE.parent))
    r = subprocess.run([sys.executable, "-m", "kda_harness.paths", "nonsense"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "usage: python -m kda_harness.paths" in r.stderr
