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
import sys
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


    def test_isolate_without_a_plugin_is_a_usage_error(self):
        r = run(["check", "--backend", "cpu", "--isolate", "--no-progress"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--isolate judges a plugin", r.stderr)


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
