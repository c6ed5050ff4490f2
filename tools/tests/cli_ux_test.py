"""The kda-harness command line as a kernel author reads it: progress on terminals and pipes,
NO_COLOR, unknown subcommands, the summary table, the JSON and JUnit reports' content, shell
completion and --help-all. Run as cli_test.py is (tools/tests/CMakeLists.txt registers both);
KDA_CPU_PLUGIN and KDA_CPU_PLUGIN_MUTANT name the CPU example plugin and a planted-bug copy."""
import json
import os
import pty
import re
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

import cli_test  # noqa: E402
from cli_test import HARNESS, run, scratch

PLUGIN = os.environ.get("KDA_CPU_PLUGIN", "")
MUTANT = os.environ.get("KDA_CPU_PLUGIN_MUTANT", "")
PROGRESS = ["check", "--suites", "contract", "--cases", "contract=3000", "--jobs", "1", "--progress-every", "0.05"]


def stderr_on_a_terminal(args, env):
    """Runs the harness with stderr on a pseudo-terminal; returns (exit code, what it wrote there)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([HARNESS] + args, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        out += data
    os.close(master)
    return p.wait(timeout=300), out.decode("utf-8", "replace")


def environment(**changes):
    env = {k: v for k, v in os.environ.items() if k not in ("TERM", "NO_COLOR")}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


class Progress(unittest.TestCase):
    def test_a_bar_with_esc_k_only_on_a_terminal_that_redraws(self):
        code, text = stderr_on_a_terminal(PROGRESS, environment(TERM="xterm"))
        self.assertEqual(code, 0, text)
        self.assertIn("\r\x1b[K", text)  # the bar, redrawn in place
        for name, env in (("TERM=dumb", environment(TERM="dumb")), ("TERM unset", environment()),
                          ("NO_COLOR", environment(TERM="xterm", NO_COLOR="1"))):
            code, text = stderr_on_a_terminal(PROGRESS, env)
            self.assertEqual(code, 0, text)
            self.assertNotIn("\x1b", text, name)
            self.assertRegex(text, r"contract \d+/3000 .*left", name)  # progress lines instead

    def test_no_escape_sequences_into_a_pipe(self):
        r = subprocess.run([HARNESS] + PROGRESS, capture_output=True, text=True, env=environment(TERM="xterm"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("\x1b", r.stderr + r.stdout)


class Subcommands(unittest.TestCase):
    def test_an_unknown_subcommand_is_named(self):
        # The known names are the ones --help lists, in its order.
        known = ", ".join(subcommands_of())
        for args, message in ((["chek"], f"kda-harness: unknown subcommand 'chek' (known: {known})"),
                              (["golden", "verfy"], "kda-harness golden: unknown subcommand 'verfy' (known: regen, "
                                                    "verify)")):
            r = run(args)
            self.assertEqual(r.returncode, 2)
            self.assertIn(message, r.stderr)
            self.assertNotIn("A subcommand is required", r.stderr)
        r = run([])
        self.assertEqual(r.returncode, 2)
        self.assertIn("A subcommand is required", r.stderr)  # no word at all: that one is right

    def test_help_all_lists_every_subcommand_and_its_options(self):
        r = run(["--help-all"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for word in ("check", "--junit", "golden", "verify", "regen", "mutants", "--unseen", "completion", "--memory-budget"):
            self.assertIn(word, r.stdout)


def options_of(*subcommand):
    """The options `kda-harness SUBCOMMAND --help` lists."""
    text = run(list(subcommand) + ["--help"]).stdout
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def subcommands_of(*subcommand):
    """The subcommands `kda-harness [SUBCOMMAND] --help` lists, in its order."""
    listed = run(list(subcommand) + ["--help"]).stdout.split("Subcommands:\n", 1)[1]
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def bash_complete(script, words):
    """COMPREPLY for the command line `words` (the last one being completed) under bash."""
    code = 'eval "$SCRIPT"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kda_harness; printf "%s\\n" "${COMPREPLY[@]}"'
    r = subprocess.run(["bash", "-c", code, "bash"] + words, capture_output=True, text=True,
                       env=dict(os.environ, SCRIPT=script), cwd=scratch("completion"))
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


class Completion(unittest.TestCase):
    def test_bash_completes_subcommands_and_the_options_each_takes(self):
        r = run(["completion", "bash"])
        self.assertEqual(r.returncode, 0, r.stderr)
        script = r.stdout
        self.assertEqual(bash_complete(script, ["kda-harness", ""]), set(subcommands_of()))
        self.assertEqual(bash_complete(script, ["kda-harness", "golden", ""]), {"regen", "verify"})
        self.assertEqual(bash_complete(script, ["kda-harness", "check", "--ju"]), {"--junit", "--junit-every-case"})
        for path in (["check"], ["case"], ["golden", "verify"], ["mutants"]):
            self.assertEqual(bash_complete(script, ["kda-harness"] + path + ["--"]), options_of(*path), path)

    def test_zsh_script_names_every_subcommand_and_option(self):
        r = run(["completion", "zsh"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("#compdef kda-harness\n"))
        for option in options_of("check") | options_of("golden", "verify"):
            self.assertIn(f"'{option}:", r.stdout)
        self.assertIn("'golden:verify') cmd='golden verify'", r.stdout)
        zsh = subprocess.run(["sh", "-c", "command -v zsh"], capture_output=True, text=True).stdout.strip()
        if not zsh:
            return  # the script's text is all that can be checked without zsh
        check = subprocess.run([zsh, "-n"], input=r.stdout, capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)
        # Its function, with zsh's completion helpers stubbed to print what they are offered.
        code = ('_describe() { print -l -- "${(@P)4}" }; _files() { print FILES }; compdef() { : }; eval "$SCRIPT"; '
                'words=("$@"); CURRENT=$#; PREFIX=${words[-1]}; _kda_harness')

        def offered(*words):
            out = subprocess.run([zsh, "-c", code, "zsh"] + list(words), capture_output=True, text=True,
                                 env=dict(os.environ, SCRIPT=r.stdout))
            self.assertEqual(out.returncode, 0, out.stderr)
            return {line.split(":")[0] for line in out.stdout.splitlines()}

        self.assertEqual(offered("kda-harness", ""), set(subcommands_of()))
        self.assertEqual(offered("kda-harness", "golden", ""), {"regen", "verify"})
        long_options = {o for o in offered("kda-harness", "check", "--ju") if o.startswith("--")}
        self.assertEqual(long_options, options_of("check"))  # zsh narrows them to --junit itself
        self.assertIn("-j", offered("kda-harness", "check", "-"))
        self.assertEqual(offered("kda-harness", "case", "B=1"), {"FILES"})

    def test_an_unknown_shell_is_a_usage_error(self):
        r = run(["completion", "fish"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("fish", r.stderr)


class Reports(unittest.TestCase):
    _mutant_run = None

    def mutant_run(self):
        """`check --json -` of the planted-bug plugin on 40 kernel cases, run once for the tests
        that read it."""
        if not MUTANT:
            self.skipTest("KDA_CPU_PLUGIN_MUTANT is not set (a build with KDA_BUILD_MUTANTS sets it)")
        if Reports._mutant_run is None:
            Reports._mutant_run = run(["check", "--backend", "plugin:" + MUTANT, "--suites", "kernel", "--cases",
                                       "kernel=40", "--no-progress", "--json", "-"], timeout=600)
        r = Reports._mutant_run
        self.assertEqual(r.returncode, 1, r.stderr)
        return r

    def test_json_has_a_schema_version_and_every_failure(self):
        r = self.mutant_run()
        doc = json.loads(r.stdout)
        self.assertEqual(doc["schema_version"], 5)
        self.assertEqual((doc["verdict"], doc["passed"]), ("failed", False))
        suite = doc["suites"][0]
        self.assertGreater(suite["failed"], 5)  # more than the text listing shows
        self.assertEqual(len(suite["failures"]), suite["failed"])
        self.assertEqual(suite["failures_left_out"], 0)
        self.assertEqual(len({f["case"] for f in suite["failures"]}), suite["failed"])
        # The listing shows the first failure of each of the first five causes (in the order
        # each first failed), after the count of its cause.
        causes = list(dict.fromkeys(f["cause"] for f in suite["failures"]))
        shown = r.stderr.count("FAILED [kernel] ")
        self.assertEqual(shown, min(len(causes), 5))
        for cause in causes[:5]:
            count = sum(f["cause"] == cause for f in suite["failures"])
            self.assertIn(f"[kernel] {count} failed case(s) of one cause: {cause}", r.stderr)
        self.assertIn(f"[kernel] {suite['failed'] - shown} more failed case(s) not shown here; --json FILE has them all",
                      r.stderr)

    def test_a_failing_rollout_is_shrunk_to_a_smaller_line_that_still_fails(self):
        r = self.mutant_run()
        shrunk = [f for f in json.loads(r.stdout)["suites"][0]["failures"] if "shrunk" in f]
        self.assertTrue(shrunk, "no failure was shrunk")

        def config(replay):
            line = re.search(r'case "([^"]+)"', replay).group(1)
            return dict(kv.split("=", 1) for kv in line.split())

        dims = ("B", "H", "HV", "K", "V", "L", "slots", "steps")
        for f in shrunk:
            before, after = config(f["replay"]), config(f["shrunk"])
            self.assertTrue(all(int(after[d]) <= int(before[d]) for d in dims), (before, after))
            self.assertLess(sum(int(after[d]) for d in dims), sum(int(before[d]) for d in dims))
            self.assertIn(f"  shrunk: {f['shrunk']}", r.stderr)
            again = run(["case", re.search(r'case "([^"]+)"', f["shrunk"]).group(1), "--backend", "plugin:" + MUTANT])
            self.assertEqual(again.returncode, 1, again.stdout + again.stderr)  # it still fails
        quiet = run(["check", "--backend", "plugin:" + MUTANT, "--suites", "kernel", "--cases", "kernel=40",
                     "--no-progress", "--no-shrink"], timeout=600)
        self.assertNotIn("shrunk:", quiet.stdout + quiet.stderr)

    def test_junit_has_one_testcase_per_case(self):
        out = os.path.join(scratch("junit-cases"), "report.xml")
        r = run(["check", "--suites", "contract,golden", "--cases", "contract=30", "--no-progress", "--junit", out,
                 "--junit-every-case"])
        self.assertEqual(r.returncode, 0, r.stderr)
        root = ET.parse(out).getroot()
        suites = {s.get("name"): s for s in root.findall("testsuite")}
        contract = suites["contract"]
        self.assertEqual([c.get("name") for c in contract.findall("testcase")], [f"case {i}" for i in range(30)])
        self.assertEqual(int(contract.get("tests")), 30)
        golden = suites["golden"].findall("testcase")
        self.assertEqual(len(golden), int(suites["golden"].get("tests")))
        self.assertTrue(all(re.fullmatch(r"case \d+ \S+", c.get("name")) for c in golden[:-1]))
        self.assertEqual(int(root.get("tests")), 30 + len(golden))

    def test_junit_failures_carry_their_message_and_replay(self):
        if not MUTANT:
            self.skipTest("KDA_CPU_PLUGIN_MUTANT is not set (a build with KDA_BUILD_MUTANTS sets it)")
        out = os.path.join(scratch("junit-failures"), "report.xml")
        r = run(["check", "--backend", "plugin:" + MUTANT, "--suites", "kernel", "--cases", "kernel=20", "--no-progress",
                 "--junit", out], timeout=600)
        self.assertEqual(r.returncode, 1, r.stderr)
        suite = ET.parse(out).getroot().find("testsuite")
        failed = [c for c in suite.findall("testcase") if c.find("failure") is not None]
        self.assertEqual(len(failed), int(suite.get("failures")))
        self.assertGreater(len(failed), 0)
        passed = [c for c in suite.findall("testcase") if c.find("failure") is None]
        self.assertEqual([c.get("name") for c in passed], [f"{20 - len(failed)} cases passed"] if len(failed) < 20 else [])
        self.assertEqual(int(suite.get("tests")), len(failed) + len(passed))
        for c in failed:
            self.assertIn("\n  replay: kda-harness ", c.find("failure").text)
            self.assertTrue(c.find("failure").get("message"))

    def test_the_summary_table_aligns_a_long_backend_name(self):
        if not PLUGIN:
            self.skipTest("KDA_CPU_PLUGIN is not set (ctest sets it to the CPU example plugin)")
        r = run(["check", "--backend", "plugin:" + PLUGIN, "--suites", "envelope,kernel-truth", "--cases",
                 "envelope=2", "--cases", "kernel-truth=2", "--no-progress"], timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        header = next(i for i, l in enumerate(lines) if l.startswith("suite "))
        table = lines[header:header + 6]
        self.assertIn("plugin:cpu-example", table[2])
        cases_end = table[0].index("cases") + len("cases")
        for row in (table[2], table[3], table[5]):  # both suites and the total
            self.assertEqual(row[cases_end - 1], "2" if row.startswith(("envelope", "kernel")) else "4", (table, row))
            self.assertEqual(row[cases_end], " ", table)

    def test_a_golden_kernel_failure_replays_through_the_plugins_path(self):
        if not MUTANT:
            self.skipTest("KDA_CPU_PLUGIN_MUTANT is not set (a build with KDA_BUILD_MUTANTS sets it)")
        r = run(["check", "--backend", "plugin:" + MUTANT, "--suites", "golden-kernel", "--no-progress", "--json", "-"],
                timeout=600)
        self.assertEqual(r.returncode, 1, r.stderr)
        failures = json.loads(r.stdout)["suites"][0]["failures"]
        self.assertGreater(len(failures), 0)
        for f in failures:
            self.assertRegex(f["replay"], r"^kda-harness case \S+\.safetensors --backend plugin:" + re.escape(MUTANT) + "$")



class ProductionShapes(unittest.TestCase):
    """--model, --list-models and the invalid-row claims a check prints."""

    def test_list_models_names_each_model_its_heads_and_source(self):
        r = run(["check", "--list-models"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"kimi-linear-48b +key +32 +32 +128 +128 +32/32 16/16 8/8 4/4")
        self.assertRegex(r.stdout, r"qwen3-next-80b +head +16 +32 +128 +128 +16/32 8/16 4/8 2/4")
        self.assertIn("linear_num_value_heads 32", r.stdout)

    def test_stats_under_a_model_show_its_heads_and_server_batches(self):
        r = run(["check", "--stats", "--model", "kimi-linear-48b:tp=1", "--suites", "kernel", "--cases", "kernel=200"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"H/HV +32/32 200 \(100\.0%\)")
        self.assertRegex(r.stdout, r"K +128 200 \(100\.0%\)")
        batches = re.search(r"\n +B +(.*)\n", r.stdout).group(1)
        self.assertRegex(batches, r"64\.\.127 \d+")
        self.assertRegex(batches, r"128\.\.256 \d+")
        self.assertRegex(r.stdout, r"slots-B +1\.\.8 200 \(100\.0%\)")
        self.assertRegex(r.stdout, r"padding +.*ends \d+")
        r = run(["check", "--stats", "--op", "gdn_replayssm", "--model", "qwen3-next-80b:tp=8", "--suites", "kernel"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"H/HV +2/4 2000 \(100\.0%\)")

    def test_a_model_of_the_other_gate_or_an_unknown_one_is_a_usage_error(self):
        for model, message in (("qwen3-next-80b", "gate per head"), ("llama", "unknown model"),
                               ("kimi-linear-48b:tp=3", "tp=3 does not divide")):
            r = run(["check", "--stats", "--model", model])
            self.assertEqual(r.returncode, 2, (model, r.stderr))
            self.assertIn(message, r.stderr)

    def test_a_pin_sets_its_keys_in_every_drawn_case_and_a_bad_one_is_a_usage_error(self):
        r = run(["check", "--stats", "--op", "fla_recurrent_kda", "--suites", "kernel", "--cases", "kernel=50",
                 "--pin", "T=1 vfirst=1 gik=1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\n +T +1 50 \(100\.0%\)")
        unpinned = run(["check", "--stats", "--op", "fla_recurrent_kda", "--suites", "kernel", "--cases", "kernel=50"])
        self.assertNotRegex(unpinned.stdout, r"\n +T +1 50 \(100\.0%\)")
        for pin, message in (("T", "'T' is not key=value"), ("op=kda_replayssm", "not op="), ("T=1 T=2", "twice")):
            r = run(["check", "--stats", "--op", "fla_recurrent_kda", "--pin", pin])
            self.assertEqual(r.returncode, 2, (pin, r.stderr))
            self.assertIn(message, r.stderr)

    def test_a_restriction_that_leaves_no_case_is_a_usage_error(self):
        # Every case used to be drawn, fail "no case fits" and exit 1, as if the kernel were wrong.
        for op in ("kda_replayssm", "gdn_replayssm"):
            r = run(["check", "--op", op, "--suites", "kernel", "--cases", "kernel=2", "--restrict", "K=3",
                     "--no-progress"])
            self.assertEqual(r.returncode, 2, (op, r.stdout, r.stderr))
            self.assertIn("--restrict K=3: no case fits: no power of two K in 3..3", r.stderr)

    def test_a_plugin_check_says_what_it_claims_of_invalid_rows(self):
        if not PLUGIN:
            self.skipTest("KDA_CPU_PLUGIN is not set")
        r = run(["check", "--backend", "plugin:" + PLUGIN, "--stats"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("invalid rows: raise declared", r.stdout)
        unchecked = PLUGIN.replace(".so", "_unchecked.so")
        r = run(["check", "--backend", "plugin:" + unchecked, "--stats"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("invalid rows: none declared", r.stdout)
        self.assertIn("not tested (--probe-invalid-indices feeds them)", r.stdout)


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
