"""A backend that crashes: `check --isolate` turns a crash, an abort or a hang past
--case-timeout into a failed case carrying its replay line and goes on with the next case;
without --isolate, a fatal signal still prints the case being run before the process dies.
The plugin (crashing_plugin.cpp) computes as the CPU example does except on calls with V = 2.

Run like cli_test.py (same environment variables, plus KDA_CRASHING_PLUGIN; ctest registers
each test by name).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_test  # noqa: E402
from cli_test import run  # noqa: E402

PLUGIN = "plugin:" + os.environ.get("KDA_CRASHING_PLUGIN", "")
CASES = 30
KERNEL = ["check", "--backend", PLUGIN, "--suites", "kernel", "--cases", f"kernel={CASES}", "--no-progress"]


def with_mode(mode):
    os.environ["KDA_CRASHING_PLUGIN_MODE"] = mode


def kernel_suite(report):
    return next(s for s in json.loads(report)["suites"] if s["suite"] == "kernel")


def alive(pid):
    """Whether the process runs (a zombie no longer does)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children_of(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except OSError:
                pass
    return out


class Isolate(unittest.TestCase):
    def check_crashes_are_named(self, mode, death, extra=()):
        with_mode(mode)
        r = run(KERNEL + ["-j", "2", "--isolate", "--json", "-", *extra], timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)  # the run ended, failing
        kernel = kernel_suite(r.stdout)
        self.assertEqual(kernel["cases"], CASES)  # every case ran: the run went on after a crash
        self.assertGreater(kernel["failed"], 0)
        self.assertGreater(kernel["passed"], 0)
        for f in kernel["failures"]:
            self.assertRegex(f["detail"], death)
            self.assertRegex(f["replay"], r"^kda-harness (case \"|check )")
            if f["replay"].startswith("kda-harness case"):
                self.assertRegex(f["replay"], r" V=2 ")  # the case that crashed, not another
        self.assertIn("replay: kda-harness", r.stderr)  # the text report lists it too
        return r

    def test_an_abort_is_a_failed_case_and_the_run_goes_on(self):
        r = self.check_crashes_are_named("overflow", r"crashed: killed by signal 6 \(SIGABRT")
        print(r.stderr[-3000:])  # the demonstration: the isolated run's report

    def test_a_segfault_is_a_failed_case(self):
        self.check_crashes_are_named("segv", r"crashed: killed by signal 11 \(SIGSEGV")

    def test_an_exit_is_a_failed_case(self):
        self.check_crashes_are_named("exit", r"ended the process \(exit status 3\)")

    def test_a_hang_past_the_case_timeout_is_killed_and_failed(self):
        # a timeout far above a case's time on a loaded machine, so only the hang is killed
        self.check_crashes_are_named("hang", r"hung: no result within 20 s \(--case-timeout\), killed",
                                     ["--case-timeout", "20"])

    def test_an_isolated_plugin_that_does_not_crash_passes(self):
        with_mode("overflow")
        r = run(["check", "--backend", PLUGIN, "--suites", "kernel-truth", "--cases", "kernel-truth=12",
                 "--restrict", "V=4..64", "--isolate", "--no-progress"], timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_helper_holding_the_result_pipe_neither_hangs_the_case_nor_outlives_it(self):
        # Each V = 2 case forks a helper that sleeps until killed, holding the child's result pipe:
        # a case was judged by end of file on the pipe, so each such case waited for the
        # timeout and was reported hung, and the helpers were left running.
        with_mode("helper")
        helpers = os.path.join(cli_test.scratch("isolate_helpers"), "pids")
        os.environ["KDA_CRASHING_PLUGIN_HELPERS"] = helpers
        began, r, pids, running = time.monotonic(), None, [], []
        try:
            r = run(KERNEL + ["-j", "2", "--isolate", "--case-timeout", "30", "--json", "-"], timeout=300)
        except subprocess.TimeoutExpired:
            pass  # the run waited for the helpers' end of the pipe
        finally:
            del os.environ["KDA_CRASHING_PLUGIN_HELPERS"]
            pids = [int(x) for x in open(helpers).read().split()] if os.path.exists(helpers) else []
            running = [p for p in pids if alive(p)]
            for p in running:  # what a failed run left
                os.kill(p, signal.SIGKILL)
        seconds = time.monotonic() - began
        self.assertIsNotNone(r, "the run did not end within 300 s")
        self.assertGreater(len(pids), 0, "no case started a helper")
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        kernel = kernel_suite(r.stdout)
        self.assertEqual((kernel["cases"], kernel["failed"]), (CASES, 0))
        self.assertLess(seconds, 30 * len(pids) / 2, "cases with a helper waited for the timeout")
        self.assertEqual(running, [], "helpers left running")

    def test_a_signal_to_an_isolated_run_ends_its_cases_too(self):
        # The children run in process groups of their own (a terminal's Ctrl-C no longer
        # reaches them): the parent ends them before it dies of the signal.
        with_mode("hang")
        p = subprocess.Popen([cli_test.HARNESS] + KERNEL + ["-j", "2", "--isolate", "--restrict", "V=2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(3)
        children = children_of(p.pid)
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=60), -signal.SIGINT)
        time.sleep(0.5)
        left = [c for c in children if alive(c)]
        for c in left:  # what a failed run left
            os.kill(c, signal.SIGKILL)
        self.assertGreater(len(children), 0, "no child was running")
        self.assertEqual(left, [], "children left running")

    def test_isolate_without_a_plugin_is_a_usage_error(self):
        r = run(["check", "--backend", "cpu", "--isolate", "--no-progress"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--isolate judges a plugin", r.stderr)


class FarOverruns(unittest.TestCase):
    """A host backend's write far past a lent tensor (more than the 4 KiB of pattern beside it)
    hits a guard page: the fault names the tensor, and under --isolate fails the case. Such a
    write landed in the harness's heap and often went unnoticed."""

    def setUp(self):
        with_mode("far")

    def tearDown(self):
        for name in ("KDA_CRASHING_PLUGIN_TENSOR", "KDA_CRASHING_PLUGIN_REACH"):
            os.environ.pop(name, None)

    def aim(self, tensor, reach):
        os.environ["KDA_CRASHING_PLUGIN_TENSOR"] = tensor
        os.environ["KDA_CRASHING_PLUGIN_REACH"] = str(reach)

    def test_under_isolate_a_write_far_past_the_state_fails_its_case_naming_it(self):
        self.aim("initial_state", 20000)
        r = run(KERNEL + ["-j", "2", "--isolate", "--json", "-"], timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)
        kernel = kernel_suite(r.stdout)
        self.assertEqual(kernel["cases"], CASES)
        self.assertGreater(kernel["failed"], 0)
        self.assertGreater(kernel["passed"], 0)
        for f in kernel["failures"]:
            self.assertRegex(f["detail"], r"crashed: killed by signal 11 \(SIGSEGV.*\): an access 20000 bytes past "
                                          r"the end of `initial_state` hit a guard page")

    def test_a_write_far_past_out_is_named(self):
        # 5000 bytes past `out` lands in its pattern zone or its guard page, by out's size.
        self.aim("out", 5000)
        r = run(KERNEL + ["-j", "1"], timeout=300)
        if r.returncode == -signal.SIGSEGV:
            self.assertIn("kda-harness: an access 5000 bytes past the end of `out` hit a guard page", r.stderr)
            self.assertRegex(r.stderr, r"replay: kda-harness .* V=2 ")
        else:
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertRegex(r.stdout + r.stderr, r"a write past the end of `out` \(up to 5000 bytes after its last element\)")

    def test_case_on_a_plugin_writing_60_kib_past_the_state_dies_naming_it(self):
        # A guard is as large as its tensor, 64 KiB at least.
        self.aim("initial_state", 60000)
        r = run(["case", "--backend", PLUGIN, "B=1 H=1 HV=1 K=128 V=2 L=2 slots=1 seed=1"], timeout=300)
        self.assertEqual(r.returncode, -signal.SIGSEGV, r.stdout + r.stderr)
        self.assertIn("an access 60000 bytes past the end of `initial_state` hit a guard page", r.stderr)


class FatalSignal(unittest.TestCase):
    def test_without_isolate_a_crash_prints_the_case_before_dying(self):
        with_mode("segv")
        r = run(KERNEL + ["-j", "1"], timeout=300)
        self.assertEqual(r.returncode, -signal.SIGSEGV, r.stderr)  # it still dies of its signal
        m = re.search(r"kda-harness: fatal signal SEGV \(Segmentation fault\) while running a case\n"
                      r"  replay: (kda-harness .*)\n", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        if m.group(1).startswith("kda-harness case"):
            self.assertRegex(m.group(1), r" V=2 ")

    def test_without_isolate_an_exit_0_inside_a_case_fails_the_run(self):
        # A plugin calling exit(0) mid-case must not end the run with status 0 and no summary.
        with_mode("exit0")
        r = run(KERNEL + ["-j", "1"], timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)
        m = re.search(r"kda-harness: exit\(\) was called while running a case \(by the backend\): the case fails\n"
                      r"  replay: (kda-harness .*)\n", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        if m.group(1).startswith("kda-harness case"):
            self.assertRegex(m.group(1), r" V=2 ")


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
