"""The kda-harness command line as a user meets it: exit codes, messages, failed writes,
bad input that must change nothing, and the machine-readable outputs (JSON, JUnit).

Run one test as: KDA_HARNESS=<binary> KDA_SOURCE=<repo> KDA_WORK=<scratch> python3 cli_test.py Class.test
(ctest registers each test by name; see tools/tests/CMakeLists.txt). Standard library only.
"""
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

HARNESS = os.environ.get("KDA_HARNESS", "")
SOURCE = os.environ.get("KDA_SOURCE", "")
WORK = os.environ.get("KDA_WORK", "")
EXAMPLES = os.path.join(SOURCE, "docs", "examples")
GOLDEN = os.path.join(SOURCE, "golden")
SMALL_CASE = "B=2 H=1 HV=2 K=16 V=16 L=4 slots=3 steps=3 seed=3"


def catalog_message(entry_id):
    """The catalog's message for an id (contract/error_catalog.json: the one place messages are written)."""
    with open(os.path.join(SOURCE, "contract", "error_catalog.json"), encoding="utf-8") as f:
        return next(e["message"] for e in json.load(f)["entries"] if e["id"] == entry_id)


def run(args, stdout=subprocess.PIPE, stdin=None, limits=None, timeout=120, input_text=None):
    """Runs the harness; limits maps an RLIMIT_* to a soft/hard value for the child."""

    def child_setup():
        # A file-size limit must fail the write (EFBIG), not kill the process.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        for which, value in (limits or {}).items():
            resource.setrlimit(which, (value, value))

    return subprocess.run([HARNESS] + args, stdout=stdout, stderr=subprocess.PIPE, stdin=stdin, input=input_text,
                          preexec_fn=child_setup, timeout=timeout, text=True)


def scratch(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def snapshot(folder):
    """Every file under folder, by relative path, with its bytes."""
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = fh.read()
    return out


def copy_golden(name):
    dest = scratch(name)
    shutil.copytree(os.path.join(GOLDEN, "cases"), os.path.join(dest, "cases"))
    shutil.copy(os.path.join(GOLDEN, "manifest.json"), os.path.join(dest, "manifest.json"))
    return dest


def read_safetensors(path):
    with open(path, "rb") as fh:
        data = fh.read()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n].decode()), data[8 + n:]


def write_safetensors(path, header, body):
    text = json.dumps(header, separators=(",", ":")).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text + body)


def example(name):
    with open(os.path.join(EXAMPLES, name)) as fh:
        return json.load(fh)


class Defects(unittest.TestCase):
    """Oversized or malformed input and a failing environment (no memory, a full disk, a
    closed stdout): each ends in a clear error and exit status, and changes nothing."""

    def test_case_over_memory_budget_is_refused_before_allocating(self):
        # Address space capped at 2 GiB: a refusal must come before any large allocation.
        r = run(["case", "K=4096 V=4096 HV=64 H=64 slots=64 B=64"], limits={resource.RLIMIT_AS: 2 << 30})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("memory budget", r.stderr)
        self.assertIn("--memory-budget", r.stderr)

    def test_out_of_memory_is_exit_2_with_a_message(self):
        # The budget raised past what the process may map: the allocation fails, and that
        # must be a message and exit 2, never an abort.
        r = run(["case", "--memory-budget", "1000000", "K=1024 V=1024 HV=8 H=8 slots=8 B=8"],
                limits={resource.RLIMIT_AS: 1 << 30})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("out of memory", r.stderr)

    def test_memory_estimate_is_not_below_the_peak(self):
        # The estimate printed for a case of ~100 MiB against the peak resident memory the
        # run reached (the binary itself is a few MiB).
        config = "B=8 H=4 HV=8 K=128 V=128 L=16 slots=64 steps=2 env=1"
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        r = run(["case", config], timeout=300)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreater(peak_kib, before, "this run must be the largest child so far")
        estimate = [l for l in r.stdout.splitlines() if l.startswith("memory: about ")]
        self.assertEqual(len(estimate), 1, r.stdout)
        estimate_mib = float(estimate[0].split()[2])
        self.assertGreater(estimate_mib, 50)
        self.assertLessEqual(peak_kib / 1024.0, estimate_mib + 16)

    def test_case_with_huge_steps_is_bounded(self):
        r = run(["case", "steps=1000000"], timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--work-budget", r.stderr)

    def test_case_of_billions_of_tiny_steps_is_bounded(self):
        # Each step costs a fixed amount besides its arithmetic: 4e9 steps of K = V = 1 are hours.
        r = run(["case", "B=1 H=1 HV=1 K=1 V=1 L=1 slots=1 steps=3999999999"], timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--work-budget", r.stderr)

    def test_golden_regen_that_cannot_write_changes_nothing(self):
        work = copy_golden("regen_full_disk")
        cases = os.path.join(work, "cases")
        victim = max(os.listdir(cases), key=lambda f: os.path.getsize(os.path.join(cases, f)))
        size = os.path.getsize(os.path.join(cases, victim))
        with open(os.path.join(cases, victim), "r+b") as fh:  # regen must rewrite this file
            fh.seek(size // 2)
            fh.write(b"\x00" * 64)
        with open(os.path.join(work, "manifest.json"), "a") as fh:  # and the manifest
            fh.write("\n")
        before = snapshot(work)
        r = run(["golden", "regen", "--dir", cases, "--manifest", os.path.join(work, "manifest.json")],
                limits={resource.RLIMIT_FSIZE: size // 4})
        after = snapshot(work)
        self.assertEqual(sorted(after), sorted(before), "files added or removed")
        for name in before:
            self.assertTrue(after[name] == before[name], name + " changed")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("cannot write", r.stderr)
        # Without the limit the same command restores the committed set.
        r = run(["golden", "regen", "--dir", cases, "--manifest", os.path.join(work, "manifest.json")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(snapshot(cases), snapshot(os.path.join(GOLDEN, "cases")))

    def test_every_subcommand_fails_on_a_failed_write_to_stdout(self):
        call = os.path.join(EXAMPLES, "validate_call.json")
        golden_file = os.path.join(GOLDEN, "cases", "kda_replayssm.sglang_contract_rollout.safetensors")
        commands = [
            ["errors"], ["errors", "--records"], ["errors", "--markdown"], ["errors", "R6"],
            ["validate", call], ["validate", "--json", call],
            ["case", SMALL_CASE], ["case", golden_file],
            ["golden", "verify", "--backend", "reference"],
            ["golden", "regen", "--dry-run", "--dir", os.path.join(GOLDEN, "cases")],
            ["check", "--suites", "contract", "--cases", "contract=20", "--no-progress"],
            ["--version"], ["--help"],
        ]
        with open("/dev/full", "w") as full:
            for args in commands:
                r = run(args, stdout=full)
                self.assertEqual(r.returncode, 2, " ".join(args) + ": " + r.stderr)
                self.assertIn("cannot write to standard output", r.stderr, " ".join(args))

    def test_validate_refuses_tensors_that_cannot_exist(self):
        big = (1 << 63) - 1
        call = example("validate_call.json")
        for name in ("initial_state", "d_cache", "k_cache", "g_cache"):
            call[name]["shape"][0] = big
            call[name]["strides"] = None
        r = run(["validate", "-"], input_text=json.dumps(call))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stdout.splitlines()[0], "X-EXTENTS")
        # 2^62 slots of 4 x 128 x 128: about 2^78 elements.
        for name in ("initial_state", "d_cache", "k_cache", "g_cache"):
            call[name]["shape"][0] = 1 << 62
        r = run(["validate", "-"], input_text=json.dumps(call))
        self.assertEqual(r.stdout.splitlines()[0], "X-EXTENTS", r.stdout)
        # A large tensor whose bytes still fit in int64 is a valid call.
        for name in ("initial_state", "d_cache", "k_cache", "g_cache"):
            call[name]["shape"][0] = 1 << 40
        r = run(["validate", "-"], input_text=json.dumps(call))
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_golden_verify_counts_broken_and_missing_files_as_failed(self):
        work = copy_golden("verify_broken")
        with open(os.path.join(work, "manifest.json")) as fh:
            # golden verify runs one operator's cases (--op, default kda_replayssm).
            listed = sum(c.get("op", "kda_replayssm") == "kda_replayssm" for c in json.load(fh)["cases"])
        cases = sorted(f for f in os.listdir(os.path.join(work, "cases")) if f.startswith("kda_replayssm."))
        for f in cases[:2]:
            with open(os.path.join(work, "cases", f), "r+b") as fh:
                fh.seek(100)
                fh.write(b"\xff\xfe\xfd")
        os.remove(os.path.join(work, "cases", cases[2]))
        r = run(["golden", "verify", "--backend", "reference", "--manifest", os.path.join(work, "manifest.json")])
        self.assertEqual(r.returncode, 1, r.stderr)
        summary = [l for l in r.stdout.splitlines() if l.startswith("golden verify on reference:")]
        self.assertEqual(len(summary), 1, r.stdout)
        self.assertIn(f": {listed - 3} passed, 3 failed;", summary[0])

    def test_malformed_golden_metadata_is_a_usage_error(self):
        work = scratch("bad_metadata")
        header, body = read_safetensors(os.path.join(GOLDEN, "cases", "kda_replayssm.sglang_contract_rollout.safetensors"))
        header["__metadata__"]["kda.steps"] = "999999999999"
        path = os.path.join(work, "bad_steps.safetensors")
        write_safetensors(path, header, body)
        r = run(["case", path])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("kda.steps", r.stderr)
        # The same file in a set whose manifest vouches for its bytes.
        work = copy_golden("bad_metadata_set")
        name = "kda_replayssm.sglang_contract_rollout.safetensors"
        write_safetensors(os.path.join(work, "cases", name), header, body)
        with open(os.path.join(work, "cases", name), "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        with open(os.path.join(work, "manifest.json")) as fh:
            manifest = json.load(fh)
        for entry in manifest["cases"]:
            if entry["file"] == "cases/" + name:
                entry["sha256"] = digest
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        r = run(["golden", "verify", "--backend", "reference", "--manifest", os.path.join(work, "manifest.json")])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("kda.steps", r.stdout)


class UserView(unittest.TestCase):
    def test_version(self):
        r = run(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^kda-harness \d+\.\d+\.\d+ ")

    def test_a_case_line_names_its_operator_and_its_replay_line_alone_replays_it(self):
        line = "op=kda_packed_decode B=2 H=1 HV=2 K=4 V=4 slots=3 steps=2 seed=5"
        r = run(["case", line])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("config: op=kda_packed_decode B=2 ", r.stdout)
        replay = [l.split("replay: ", 1)[1] for l in r.stdout.splitlines() if l.strip().startswith("replay: ")]
        self.assertEqual(len(replay), 1, r.stdout)
        self.assertNotIn("--op", replay[0])
        again = run(shlex.split(replay[0])[1:])
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual([l for l in again.stdout.splitlines() if l.startswith("config: ")],
                         [l for l in r.stdout.splitlines() if l.startswith("config: ")])
        self.assertEqual(run(["case", line, "--op", "kda_packed_decode"]).returncode, 0)
        both = run(["case", line, "--op", "kda_replayssm"])
        self.assertEqual(both.returncode, 2, both.stdout + both.stderr)
        self.assertIn("op=kda_packed_decode", both.stderr)
        self.assertIn("--op names kda_replayssm", both.stderr)
        self.assertNotIn("PASS", both.stdout)
        # the default operator's lines name none, as before
        plain = run(["case", "B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 steps=2 seed=5"])
        self.assertEqual(plain.returncode, 0, plain.stdout + plain.stderr)
        self.assertNotIn("op=", plain.stdout)

    def test_errors_with_an_id_prints_that_entry(self):
        r = run(["errors", "R6"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(catalog_message("R6"), r.stdout)
        self.assertIn("Fix:", r.stdout)
        self.assertNotIn("## R7", r.stdout)
        r = run(["errors", "R99"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("R99", r.stderr)
        lower = run(["errors", "r6"])  # ids are looked up whatever their case
        self.assertEqual((lower.returncode, lower.stdout), (0, run(["errors", "R6"]).stdout), lower.stderr)

    def test_records_are_enveloped_like_the_seed(self):
        r = run(["errors", "--records"])
        self.assertEqual(r.returncode, 0, r.stderr)
        records = json.loads(r.stdout)
        listing = run(["errors"]).stdout.splitlines()
        self.assertEqual(len(records), len(listing))
        for entry in records:
            self.assertEqual(sorted(entry), ["datasetVersion", "record"])

    def test_validate_names_the_values_behind_the_seed_error(self):
        r = run(["validate", os.path.join(EXAMPLES, "validate_k_cache_hv.json")])
        self.assertEqual(r.returncode, 1)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[:2], ["R6", catalog_message("R6")])
        self.assertIn("k_cache.shape[1:] = (4, 4, 128)", r.stdout)
        self.assertIn("expected (H, L, K) = (2, 4, 128)", r.stdout)
        self.assertIn("H = 2", r.stdout)
        self.assertIn("HV = 4", r.stdout)

    def test_validate_json(self):
        r = run(["validate", "--json", os.path.join(EXAMPLES, "validate_k_cache_hv.json")])
        self.assertEqual(r.returncode, 1)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["status"], "error")
        self.assertEqual(doc["id"], "R6")
        self.assertEqual(doc["message"], catalog_message("R6"))
        self.assertEqual(doc["values"]["k_cache.shape[1:]"], [4, 4, 128])
        self.assertEqual(doc["values"]["H"], 2)
        self.assertEqual(doc["values"]["HV"], 4)
        r = run(["validate", "--json", "-"], input_text='{"scale": 1.0, "scale": 2.0}')
        self.assertEqual(r.returncode, 2)
        self.assertEqual(json.loads(r.stdout)["status"], "usage-error")
        r = run(["validate", "--json", os.path.join(EXAMPLES, "validate_call.json")])
        self.assertEqual(r.returncode, 0)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["status"], "ok")
        self.assertEqual((doc["dims"]["H"], doc["dims"]["HV"], doc["dims"]["K"]), (2, 4, 128))

    def test_validate_op_packed_decode(self):
        packed = os.path.join(EXAMPLES, "validate_packed_call.json")
        r = run(["validate", "--op", "kda_packed_decode", packed])
        self.assertEqual((r.returncode, r.stdout), (0, "ok B=3 H=2 HV=4 K=128 V=128 slots=5\n"), r.stderr)
        # ReplaySSM's example has a 3-D `a`, which its wrapper flattens and this operator refuses.
        r = run(["validate", "--op", "kda_packed_decode", os.path.join(EXAMPLES, "validate_call.json")])
        self.assertEqual(r.returncode, 2, "the ring keys are not this operator's")
        call = example("validate_call.json")
        for name in ("d_cache", "k_cache", "g_cache", "write_pos", "force_flush"):
            del call[name]
        r = run(["validate", "--op", "kda_packed_decode", "-"], input_text=json.dumps(call))
        self.assertEqual(r.stdout.splitlines()[:2], ["V3", "`a` and `b` must be 2D tensors (got a.ndim=3, b.ndim=2)."])
        call["a"]["shape"] = [3, 512]
        r = run(["validate", "--op", "kda_packed_decode", "-"], input_text=json.dumps(call))
        self.assertEqual(r.stdout.splitlines()[:2], ["V5", "`A_log`/`dt_bias` must be 1D tensors."])
        r = run(["validate", "--op", "kda_packed_decode", "--json", packed])
        self.assertEqual(json.loads(r.stdout)["dims"], {"B": 3, "H": 2, "HV": 4, "K": 128, "V": 128, "slots": 5})
        r = run(["validate", "--op", "kda_other", packed])
        self.assertEqual(r.returncode, 2)

    def test_errors_op_lists_what_the_operator_raises(self):
        ids = lambda op: [line.split("\t")[0] for line in run(["errors", "--op", op]).stdout.splitlines()]
        packed, replay = ids("kda_packed_decode"), ids("kda_replayssm")
        self.assertEqual(replay, [line.split("\t")[0] for line in run(["errors"]).stdout.splitlines()])
        self.assertTrue(set(packed) < set(replay))
        for gone in ("W1", "W2", "R6", "X-VIEW-A", "X-RING-SLOTS", "X-WRITE-POS"):
            self.assertNotIn(gone, packed)
        self.assertIn("V3", packed)
        records = json.loads(run(["errors", "--records", "--op", "kda_packed_decode"]).stdout)
        self.assertEqual(len(records), len(packed))
        self.assertIn("kda-operator:kda_packed_decode", records[0]["record"]["tags"])

    def test_default_golden_manifest_follows_the_working_folder_and_env(self):
        work = scratch("default_manifest")
        golden = copy_golden("default_manifest/golden")
        with open(os.path.join(golden, "manifest.json")) as fh:
            manifest = json.load(fh)
        dropped = manifest["cases"].pop()
        os.remove(os.path.join(golden, dropped["file"]))
        with open(os.path.join(golden, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        listed = len(manifest["cases"])
        r = subprocess.run([HARNESS, "golden", "verify", "--backend", "reference"], cwd=work, capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"golden set: {listed} cases listed in golden/manifest.json", r.stdout)
        env = dict(os.environ, KDA_GOLDEN_MANIFEST=os.path.join(golden, "manifest.json"))
        r = subprocess.run([HARNESS, "golden", "verify", "--backend", "reference"], cwd="/", env=env,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"golden set: {listed} cases listed in {golden}/manifest.json", r.stdout)

    def test_case_prints_a_verdict_line(self):
        r = run(["case", SMALL_CASE])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout.splitlines()[-1], r"^PASS ")
        r = run(["case", os.path.join(GOLDEN, "cases", "kda_replayssm.error_k_cache_tp_unsharded.safetensors")])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout.splitlines()[-1], r"^PASS ")

    def test_empty_case_is_a_usage_error(self):
        r = run(["case", ""])
        self.assertEqual(r.returncode, 2)
        self.assertIn("empty", r.stderr)

    def test_duplicate_keys_are_errors(self):
        r = run(["case", "B=2 H=1 HV=2 K=16 V=16 B=3"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("'B' appears twice", r.stderr)
        with open(os.path.join(EXAMPLES, "validate_call.json")) as fh:
            text = fh.read()
        dup_top = text.replace('"force_flush": null,', '"force_flush": null, "scale": 1.0,')
        dup_inner = text.replace('"dtype": "float32",  "device": "cuda:0"}', '"dtype": "float32", "dtype": "float16",'
                                 ' "device": "cuda:0"}', 1)
        for bad in (dup_top, dup_inner):
            self.assertNotEqual(bad, text)
            r = run(["validate", "-"], input_text=bad)
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn("duplicate key", r.stderr)

    def test_validate_names_the_op_a_call_of_another_operator_needs(self):
        """A call file names no operator: one that is no call of the operator validate reads (the
        default, or --op's) says which operators' calls it is and the --op to add."""
        packed = os.path.join(EXAMPLES, "validate_packed_call.json")
        r = run(["validate", packed])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn('missing key "d_cache" (read as a call of kda_replayssm; it is a call of kda_packed_decode: '
                      'add --op kda_packed_decode)', r.stderr)
        doc = json.loads(run(["validate", "--json", packed]).stdout)
        self.assertEqual(doc["status"], "usage-error")
        self.assertIn("add --op kda_packed_decode", doc["message"])
        self.assertEqual(run(["validate", "--op", "kda_packed_decode", packed]).returncode, 0)
        r = run(["validate", os.path.join(EXAMPLES, "validate_gdn_call.json")])
        self.assertIn("it is a call of gdn_replayssm or kda_triton_replayssm: add --op gdn_replayssm or --op "
                      "kda_triton_replayssm)", r.stderr)
        # Keys of no operator's call: the message alone.
        r = run(["validate", "-"], input_text='{"nothing": 1}')
        self.assertEqual(r.returncode, 2)
        self.assertNotIn("--op", r.stderr)

    def test_check_json_to_stdout(self):
        r = run(["check", "--suites", "contract", "--cases", "contract=30", "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["suites"][0]["suite"], "contract")
        self.assertEqual(doc["suites"][0]["cases"], 30)

    def test_check_junit(self):
        out = os.path.join(scratch("junit"), "report.xml")
        r = run(["check", "--suites", "contract,golden", "--cases", "contract=30", "--no-progress", "--junit", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        root = ET.parse(out).getroot()
        self.assertEqual(root.tag, "testsuites")
        suites = {s.get("name"): s for s in root.findall("testsuite")}
        self.assertEqual(set(suites), {"contract", "golden"})
        props = {p.get("name"): p.get("value") for p in suites["contract"].iter("property")}
        self.assertEqual(int(props["cases"]), 30)
        self.assertEqual(int(props["failed_cases"]), 0)
        self.assertEqual(int(suites["contract"].get("failures")), 0)
        # By default one testcase for the cases that passed (and one per failure): a report of
        # 150,000 cases stays small.
        self.assertEqual([c.get("name") for c in suites["contract"].findall("testcase")], ["30 cases passed"])
        self.assertEqual(int(suites["contract"].get("tests")), 1)
        # A report that cannot be written is an error, and leaves no partial file.
        r = run(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress", "--junit",
                 os.path.join(WORK, "no-such-dir", "report.xml")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot write", r.stderr)

    def test_check_that_judged_nothing_is_no_pass(self):
        """A check whose every suite was skipped judged nothing: the table says so with each
        suite's reason, never "all passed" over 0 cases; exit 77 (what ctest and Automake read
        as skipped; a CI job fails on it as on any nonzero code); the JSON's verdict says
        "nothing judged" and passed is false; JUnit counts the suite as skipped. One suite that
        ran is a verdict again."""
        # fla_recurrent_kda's checks are all harness extensions: its kernel-contract suite has
        # no documented error input to send, whatever the backend.
        plugin = os.path.join(os.path.dirname(HARNESS), "..", "plugins", "libkda_cpu_example_fla_recurrent_kda.so")
        if not os.path.exists(plugin):
            self.skipTest(f"no {plugin} (a CMake build makes it)")
        out = scratch("nothing-judged")
        junit = os.path.join(out, "report.xml")
        r = run(["check", "--op", "fla_recurrent_kda", "--suites", "kernel-contract", "--backend", "plugin:" + plugin,
                 "--no-progress", "--json", "-", "--junit", junit])
        self.assertEqual(r.returncode, 77, r.stderr)
        reason = "the operator has no documented error input (its checks are all harness extensions)"
        self.assertIn("kernel-contract: skipped: " + reason, r.stderr)
        self.assertRegex(r.stderr, r"\ntotal +0 +0 +0 +NOTHING JUDGED ")
        self.assertIn("nothing judged: every suite was skipped", r.stderr)
        self.assertNotIn("all passed", r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual((doc["verdict"], doc["passed"]), ("nothing judged", False))
        self.assertEqual(doc["suites"][0]["skipped"], reason)
        root = ET.parse(junit).getroot()
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("1", "0", "1"))
        r = run(["check", "--op", "fla_recurrent_kda", "--suites", "contract", "--cases", "contract=5", "--no-progress"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\ntotal +5 +5 +0 +all passed ")

    def test_a_test_that_skips_exits_77_for_ctest(self):
        """main() exits SKIPPED (ctest's SKIP_RETURN_CODE for these tests) with the reason when every
        test it ran skipped, so that ctest counts a skip as one, never as a pass; a test that ran
        exits 0."""
        env = {k: v for k, v in os.environ.items() if k != "KDA_CPU_PLUGIN"}
        me = [sys.executable, os.path.abspath(__file__)]
        r = subprocess.run(me + ["UserView.test_kernel_contract_judges_a_plugins_refusals"], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, SKIPPED, r.stdout + r.stderr)
        self.assertIn("SKIPPED: __main__.UserView.test_kernel_contract_judges_a_plugins_refusals: KDA_CPU_PLUGIN is not set",
                      r.stdout)
        r = subprocess.run(me + ["UserView.test_check_json_to_stdout"], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_kernel_contract_judges_a_plugins_refusals(self):
        """kernel-contract (the suite the C library and Python run by that name too): each
        documented error input must be refused with the contract's exact message, nothing written;
        run when --suites names it. A plugin that writes before validating fails it, each failure
        saying what the refused call changed."""
        plugin = os.environ.get("KDA_CPU_PLUGIN", "")
        if not plugin:
            self.skipTest("KDA_CPU_PLUGIN is not set (ctest sets it)")
        r = run(["check", "--backend", "plugin:" + plugin, "--suites", "kernel-contract", "--cases",
                 "kernel-contract=40", "--no-progress"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"kernel-contract +plugin:cpu-example +40 +40 +0 ")
        mutant = os.environ.get("KDA_CPU_PLUGIN_WRITES_BEFORE_VALIDATING", "")
        if not mutant:
            self.skipTest("KDA_CPU_PLUGIN_WRITES_BEFORE_VALIDATING is not set (a build with the planted bugs sets it)")
        r = run(["check", "--backend", "plugin:" + mutant, "--suites", "kernel-contract", "--cases", "kernel-contract=3",
                 "--no-progress"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # Grouped by cause (the check refused and the tensor changed): every group's first shown,
        # the counts adding up to the three.
        failures = re.findall(r"^FAILED \[kernel-contract\] error input \S+: (.*)$", r.stdout, re.M)
        counts = [int(n) for n in re.findall(r"^\[kernel-contract\] (\d+) failed case\(s\) of one cause: ", r.stdout, re.M)]
        self.assertEqual((sum(counts), len(failures)), (3, len(counts)), r.stdout)
        for f in failures:
            self.assertRegex(f, r"^refused the call \(\S+\) but changed \w+\[")

    def test_an_envelope_failure_says_what_the_call_changed(self):
        """A plugin that computes calls outside the envelope it declares fails the envelope suite,
        each failure naming why the call lies outside and what the step wrote."""
        mutant = os.environ.get("KDA_CPU_PLUGIN_ENVELOPE_NOT_ENFORCED", "")
        if not mutant:
            self.skipTest("KDA_CPU_PLUGIN_ENVELOPE_NOT_ENFORCED is not set (a build with the planted bugs sets it)")
        r = run(["check", "--backend", "plugin:" + mutant, "--suites", "envelope", "--cases", "envelope=3",
                 "--no-progress"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        failures = re.findall(r"^  FAILURE: outside the envelope \((.+?)\), token 0: computed a call it should have "
                              r"refused \(wrote \w+\[", r.stdout, re.M)
        counts = [int(n) for n in re.findall(r"^\[envelope\] (\d+) failed case\(s\) of one cause: ", r.stdout, re.M)]
        self.assertEqual((sum(counts), len(failures)), (3, len(counts)), r.stdout)  # each cause's first shown

    def test_check_reports_do_not_depend_on_the_worker_count(self):
        """-j 1 and -j 2 give the same reports (JSON, JUnit, the summary on stdout) but for the times
        and the worker count: the cases, their order, each failure and each suite's worst case. On
        the CPU suites, and on a plugin's backend suites (a planted-bug copy where the build has one,
        so that the failures' order is compared too)."""
        mutant = os.environ.get("KDA_CPU_PLUGIN_MUTANT", "")
        plugin = mutant or os.environ.get("KDA_CPU_PLUGIN", "")
        runs = [(["--backend", "cpu", "--suites", "reference,pure-double,contract", "--cases", "reference=40",
                  "--cases", "pure-double=40", "--cases", "contract=200"], 0)]
        if plugin:
            runs.append((["--backend", "plugin:" + plugin, "--suites", "kernel,kernel-truth", "--cases", "kernel=40",
                          "--cases", "kernel-truth=20"], 1 if mutant else 0))
        folder = scratch("jobs")

        def report(args, jobs):
            json_path, junit_path = (os.path.join(folder, "j{}.{}".format(jobs, ext)) for ext in ("json", "xml"))
            r = run(["check"] + args + ["--no-progress", "--jobs", str(jobs), "--json", json_path, "--junit", junit_path])
            with open(json_path) as f:
                doc = json.load(f)
            with open(junit_path) as f:
                junit = f.read()
            doc.pop("wall_seconds")
            self.assertEqual(doc["options"].pop("jobs"), jobs)
            for suite in doc["suites"]:
                suite.pop("seconds")
            summary = re.sub(r"\d+\.\ds\b", "<time>", r.stdout.replace("{} worker thread(s)".format(jobs), "<jobs>"))
            # A time's width (9.9s, 10.0s) pads its table's columns and rules: compare the words.
            summary = re.sub(r"-{3,}", "---", re.sub(r" +", " ", summary))
            return r.returncode, doc, re.sub(r' time="[0-9.]+"', "", junit), summary

        for args, code in runs:
            one, two = report(args, 1), report(args, 2)
            self.assertEqual(one[0], code, one[3])
            self.assertGreater(sum(s["cases"] for s in one[1]["suites"]), 0)
            if code:
                self.assertGreater(sum(s["failed"] for s in one[1]["suites"]), 1, one[3])  # an order to compare
            self.assertEqual(one, two)

    def test_progress_lines_with_an_estimate_when_not_a_terminal(self):
        r = run(["check", "--suites", "contract", "--cases", "contract=3000", "--jobs", "1", "--progress-every", "0.05"])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("contract ")]
        self.assertGreater(len(lines), 0, r.stderr)
        self.assertRegex(lines[0], r"\d+/3000 .*left")
        self.assertNotIn("\r", r.stderr)


# The exit code of a run whose every test skipped: ctest's SKIP_RETURN_CODE for the cli tests
# (tools/tests/CMakeLists.txt), so that a skip is counted as one, not as a pass.
SKIPPED = 77


def main(module):
    """The entry point of every cli_*_test.py: `--list` prints the test ids, one a line, for ctest
    to register; otherwise the named tests run (the harness, source and work folder must be set),
    exiting SKIPPED, with each reason, when every one of them skipped."""
    if sys.argv[1:] == ["--list"]:
        for case in unittest.defaultTestLoader.loadTestsFromModule(module):
            for test in case:
                print(test.id().split(".", 1)[1])
        sys.exit(0)
    for var, value in (("KDA_HARNESS", HARNESS), ("KDA_SOURCE", SOURCE), ("KDA_WORK", WORK)):
        if not value:
            sys.exit(f"{os.path.basename(module.__file__)}: set {var}")
    result = unittest.main(module=module, exit=False).result
    if result.wasSuccessful() and result.testsRun > 0 and len(result.skipped) == result.testsRun:
        for test, reason in result.skipped:
            print(f"SKIPPED: {test.id()}: {reason}")
        sys.exit(SKIPPED)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main(sys.modules[__name__])
