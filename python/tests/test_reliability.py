"""What pure Python must not be able to break, and argument errors that must be clear: a step
that keeps a lent array and writes it later, read-only arrays given to reference_step, plugins
the C loader refuses, Ctrl-C during check(), slow steps, and arguments that make no sense."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import kda_harness
import numpy_step

HERE = os.path.dirname(os.path.abspath(__file__))


def run_python(code, timeout=300, **popen):
    """Runs code in a fresh interpreter with this package importable (a crash there cannot take
    the test session with it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    popen.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, **popen)


def odd_plugin(way):
    folder = os.environ.get("KDA_ODD_PLUGINS")
    path = os.path.join(folder or "", f"libkda_odd_plugin_{way}.so")
    if not folder or not os.path.exists(path):
        pytest.skip(f"KDA_ODD_PLUGINS does not hold {os.path.basename(path)} (ctest sets it)")
    return path


def test_a_step_that_keeps_lent_arrays_and_writes_them_later_corrupts_nothing():
    r = run_python("""
        import numpy as np, kda_harness, numpy_step
        kept = []
        def step(**kw):
            numpy_step.replayssm_step(**kw)
            for old in kept:  # arrays of earlier steps and cases, written after their step
                old[...] = 7
            kept.extend(v for v in kw.values() if isinstance(v, np.ndarray))
        report = kda_harness.check(step, suites="kernel", n=6)
        for old in kept:
            old[...] = 1  # after check() returned, every buffer it lent is gone on the C side
        assert report.passed, str(report)
        print("ok", len(kept))
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok"), r.stdout


def test_reference_step_refuses_read_only_arrays():
    case = next(iter(kda_harness.cases(n=1, seed=3)))
    kwargs = case.kwargs()
    before = {k: v.copy() for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    frozen = kwargs["initial_state"]
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="initial_state"):
        kda_harness.reference_step(**kwargs)
    for name, old in before.items():
        assert np.array_equal(np.asarray(kwargs[name]), old, equal_nan=True), name
    # An array over a bytes object cannot be made writable at all.
    kwargs["initial_state"] = np.frombuffer(frozen.tobytes(), dtype=frozen.dtype).reshape(frozen.shape)
    with pytest.raises(ValueError, match="initial_state"):
        kda_harness.reference_step(**kwargs)


@pytest.mark.parametrize("way", ["null_op", "null_step", "unknown_profile", "empty_envelope", "reversed_envelope"])
def test_load_plugin_refuses_what_the_c_loader_refuses(way):
    path = odd_plugin(way)
    r = run_python(f"""
        import kda_harness
        try:
            kda_harness.load_plugin({path!r})
        except ValueError as e:
            print("refused:", e)
        else:
            print("loaded")
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("refused:"), r.stdout + r.stderr


def _interrupted_check(step_body, after):
    """A check() in a child process, sent Ctrl-C `after` seconds into its run: (exit status,
    stdout + stderr, seconds from the signal to the exit)."""
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time, kda_harness, numpy_step
        def step(**kw):
            {step_body}
            numpy_step.replayssm_step(**kw)
        print("started", flush=True)
        try:
            kda_harness.check(step, suites="kernel", n=100000)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)], env=dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(after)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return p.returncode, out + err, time.monotonic() - sent


def test_check_stops_promptly_on_ctrl_c_within_a_step():
    status, output, seconds = _interrupted_check("time.sleep(0.05)", 2)
    assert status == 3 and "interrupted" in output, output
    assert seconds < 10


def test_check_stops_promptly_on_ctrl_c_between_steps():
    # Fast steps: the signal mostly lands while the C library runs, and Python's handler would
    # then raise at the next callback's first line. Several tries, at different moments.
    for after in (0.5, 0.8, 1.1, 1.4, 1.7):
        status, output, seconds = _interrupted_check("pass", after)
        assert status == 3 and "interrupted" in output, f"Ctrl-C after {after}s: {output[-2000:]}"
        assert seconds < 10


def test_step_timeout_fails_a_step_that_takes_too_long():
    def sleepy(**kw):
        time.sleep(0.5)
        numpy_step.replayssm_step(**kw)

    report = kda_harness.check(sleepy, suites="kernel", n=1, step_timeout=0.1)
    assert not report.passed
    assert "step_timeout" in str(report)
    with pytest.raises(ValueError, match="step_timeout"):
        kda_harness.check(numpy_step.replayssm_step, n=1, step_timeout=-1)


def test_argument_errors_are_clear():
    case = next(iter(kda_harness.cases(n=1, seed=3)))
    with pytest.raises(ValueError, match="device"):
        kda_harness.validate(**case.kwargs(), device="tpu")
    with pytest.raises(ValueError, match="rounding"):
        kda_harness.reference_step(**case.kwargs() | {"rounding": "nope"})
    with pytest.raises(TypeError, match="scale"):
        kda_harness.reference_step(**case.kwargs() | {"scale": None})
    with pytest.raises(ValueError, match="device"):
        kda_harness.check(numpy_step.replayssm_step, n=1, device="tpu")


def test_a_check_of_no_case_is_refused():
    # n = 0 or -5 judges nothing: that must never read as a pass.
    for n in (0, -5):
        with pytest.raises(ValueError, match="n must be a positive number"):
            kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=n)


def test_seeds_that_do_not_fit_a_uint64_are_refused():
    # ctypes would wrap them silently into another seed.
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match="seed"):
            kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=1, seed=seed)
        with pytest.raises(ValueError, match="seed"):
            kda_harness.config_line(0, seed=seed)
        with pytest.raises(ValueError, match="seed"):
            kda_harness.suite_case_line("kernel", 0, seed=seed)
    assert kda_harness.config_line(0, seed=2**64 - 1)


def test_a_failure_with_a_message_of_megabytes_is_judged_once():
    # A report over the 1 MiB buffer used to be asked for again, running the case again: a
    # kernel failing once with a 2 MB message was reported passed, its step called twice.
    def failing(message):
        calls = []

        def step(**kw):
            calls.append(1)
            raise RuntimeError(message)
        return step, calls

    short_step, short_calls = failing("no")  # not shrunk: its reruns are not the case's runs
    assert not kda_harness.check(short_step, suites="kernel", n=1, shrink=False).passed
    long_step, long_calls = failing("x" * (2 << 20))
    report = kda_harness.check(long_step, suites="kernel", n=1, shrink=False)
    assert not report.passed
    assert len(long_calls) == len(short_calls)
    assert "more bytes left out" in str(report)


@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                    reason="under AddressSanitizer the shadow memory alone is past an address-space limit")
def test_a_check_of_millions_of_cases_starts_without_gigabytes():
    # check(n=4e6) made every case's options before case 0 (gigabytes); the first step stops it here.
    r = run_python("""
        import resource, kda_harness
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        def step(**kw):
            raise KeyboardInterrupt
        try:
            kda_harness.check(step, suites="kernel", n=4_000_000)
        except KeyboardInterrupt:
            print("stopped at the first step")
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stopped at the first step" in r.stdout


def test_ctrl_c_in_an_isolated_case_stops_the_run():
    # The child's KeyboardInterrupt came back as HarnessError("KeyboardInterrupt: "): pytest went on.
    r = run_python("""
        import kda_harness
        def step(**kw):
            raise KeyboardInterrupt
        try:
            kda_harness.check(step, suites="kernel", n=3, isolate=True)
        except KeyboardInterrupt:
            print("interrupted")
        except kda_harness.HarnessError as e:
            print("harness error", e)
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "interrupted", r.stdout + r.stderr


def _running(pid):
    """Whether the process runs (a zombie no longer does)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_an_isolated_case_whose_helper_holds_the_result_pipe_ends_with_its_result(tmp_path):
    # The step forks a helper that sleeps until killed, holding the child's result pipe: a case
    # was judged by end of file on the pipe, so it waited for case_timeout, was reported hung,
    # and the helper was left running.
    pids = tmp_path / "helpers"
    try:
        r = run_python(f"""
            import os, signal, time, kda_harness, numpy_step
            def step(**kw):
                if os.fork() == 0:
                    with open({str(pids)!r}, "a") as f:
                        f.write(f"{{os.getpid()}}\\n")
                    while True:
                        signal.pause()
                return numpy_step.replayssm_step(**kw)
            began = time.monotonic()
            report = kda_harness.check(step, suites="kernel", n=2, isolate=True, case_timeout=20)
            print(report.passed, round(time.monotonic() - began))
            print(report)
        """, timeout=120)
    finally:
        helpers = [int(p) for p in pids.read_text().split()] if pids.exists() else []
        left = [p for p in helpers if _running(p)]
        for p in left:  # what a failed run left
            os.kill(p, signal.SIGKILL)
    assert r.returncode == 0, r.stdout + r.stderr
    passed, seconds = r.stdout.split("\n")[0].split()
    assert passed == "True" and int(seconds) < 20, r.stdout
    assert helpers and not left


def test_a_terminal_ctrl_c_stops_an_isolated_run_in_a_hung_case():
    # The child runs in a process group of its own, out of a terminal's reach: the parent passes
    # Ctrl-C on, and the run stops as it does without isolate.
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time, kda_harness
        def step(**kw):
            time.sleep(1000)
        print("started", flush=True)
        try:
            kda_harness.check(step, suites="kernel", n=3, isolate=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)], env=dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(3)
    os.killpg(p.pid, signal.SIGINT)  # as a terminal sends it: to the foreground process group
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0 and out.strip() == "interrupted", out + err
