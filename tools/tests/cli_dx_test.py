"""What `check` says besides its verdict, as a kernel author reads it: --time (the judged
backend's step per shape class, with the benchmark's bytes model: bench.time_classes checks the
bytes against the benchmark's), the coverage of what the backend suites' rollouts tested, and
the operator's own words (no ring, cursor or flush for the plain packed decode). Run as
cli_test.py is; KDA_CPU_PLUGIN names the CPU example plugin of kda_replayssm, beside which the
other operators' lie."""
import json
import os
import re
import sys
import unittest

import cli_test  # noqa: E402
from cli_test import run

PLUGIN = os.environ.get("KDA_CPU_PLUGIN", "")
# Words of a ring: a config key, or the envelope's and statistics' names for one.
RING_WORDS = re.compile(r"(^|\s)(L|ring|ff|flush|rcur|circ|pgc)=|flushes|appends|ring mode|force_flush|L<=|\bring\b|cursor", re.M)


def plugin_of(op):
    if not PLUGIN:
        raise unittest.SkipTest("KDA_CPU_PLUGIN is not set")
    return os.path.join(os.path.dirname(PLUGIN), f"libkda_cpu_example_{op}.so")


class Time(unittest.TestCase):
    def test_time_reports_each_class_beside_the_copy(self):
        r = run(["check", "--backend", "plugin:" + plugin_of("kda_packed_decode"), "--suites", "kernel", "--cases",
                 "kernel=2", "--no-progress", "--time", "--json", "-"], timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("time: plugin:cpu-example-packed-decode per step, steady clock", r.stderr)
        timing = json.loads(r.stdout)["time"]
        self.assertEqual(timing["clock"], "steady clock")
        self.assertGreater(timing["copy_gbps"], 0)
        self.assertEqual([c["class"] for c in timing["classes"]], ["decode B=1", "decode B=64"])
        for c in timing["classes"]:
            self.assertGreater(c["median_us"], 0, c)
            self.assertGreaterEqual(c["runs"], 5, c)
            self.assertGreater(c["bytes"], 0, c)
            self.assertAlmostEqual(c["gbps"], c["bytes"] / (c["median_us"] * 1e3), delta=1e-9 * c["gbps"])
            self.assertIn(f"B={c['config'].split('B=')[1].split()[0]}", c["class"])
            self.assertIn(re.sub(r"^decode ", "", c["class"]), c["config"])

    def test_without_time_nothing_is_timed(self):
        r = run(["check", "--backend", "plugin:" + plugin_of("kda_packed_decode"), "--suites", "kernel", "--cases",
                 "kernel=1", "--no-progress", "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("time:", r.stderr)
        self.assertNotIn("time", json.loads(r.stdout))


class Coverage(unittest.TestCase):
    def test_coverage_of_the_cases_that_ran(self):
        r = run(["check", "--backend", "plugin:" + plugin_of("kda_replayssm"), "--suites", "kernel", "--cases",
                 "kernel=6", "--no-progress", "--json", "-"], timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"coverage \(what the backend suites' rollouts tested\): \d+ tokens \(rows: \d+ flushes, "
                                   r"\d+ appends\); 6 cases")
        for field in ("K", "B", "padding", "strided", "act", "ring mode", "L"):
            self.assertRegex(r.stderr, rf"\n  {re.escape(field)} +\S", field)
        coverage = json.loads(r.stdout)["coverage"]
        self.assertEqual(coverage["rollouts"], 6)
        self.assertEqual(sum(coverage["counts"]["K"].values()), 6)
        self.assertGreater(coverage["flushes"] + coverage["appends"], 0)


class OperatorWords(unittest.TestCase):
    def test_the_packed_decode_reads_no_ring(self):
        plugin = plugin_of("kda_packed_decode")
        r = run(["check", "--backend", "plugin:" + plugin, "--suites", "kernel", "--cases", "kernel=3", "--no-progress"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNone(RING_WORDS.search(r.stdout), r.stdout)
        r = run(["check", "--op", "kda_packed_decode", "--stats"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNone(RING_WORDS.search(r.stdout), r.stdout)
        r = run(["case", "B=2 H=1 HV=2 K=8 V=8 slots=3 steps=2 seed=4", "--op", "kda_packed_decode"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNone(RING_WORDS.search(r.stdout), r.stdout)

    def test_the_replayssm_reads_its_ring(self):
        r = run(["check", "--backend", "plugin:" + plugin_of("kda_replayssm"), "--suites", "kernel", "--cases", "kernel=3",
                 "--no-progress"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r" ring \{")
        self.assertRegex(r.stdout, r"flushes, \d+ appends")
        r = run(["case", "B=2 H=1 HV=2 K=8 V=8 L=3 slots=3 steps=2 seed=4"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"L=3 .*ring=bf16")


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
