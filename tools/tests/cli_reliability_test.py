"""What a hostile-but-fair user can do to kda-harness: report targets that are not regular
files, folders holding files the harness did not make, interrupted commits, sets that verify
nothing, and arguments that do not make sense. Each test names the behaviour it keeps.

Run like cli_test.py (same environment variables; ctest registers each test by name).
"""
import hashlib
import json
import os
import re
import resource
import select
import shutil
import stat
import struct
import subprocess
import sys
import threading
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_test  # noqa: E402
from cli_test import (GOLDEN, HARNESS, WORK, copy_golden, example, read_safetensors, run, scratch, snapshot,  # noqa: E402
                      write_safetensors)

CONTRACT_ONLY = ["check", "--suites", "contract", "--cases", "contract=5", "--no-progress"]


def read_fifo(path, sink, seconds=60):
    """Reads a FIFO until its writer closes it (or seconds pass) into sink (a list of bytes)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # does not wait for a writer
    deadline = time.monotonic() + seconds
    seen_writer = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if chunk:
                sink.append(chunk)
                seen_writer = True
            elif seen_writer:
                return
            else:
                time.sleep(0.05)  # no writer yet: EOF without data
    finally:
        os.close(fd)


def sanitized():
    """A harness built with AddressSanitizer: its shadow memory does not fit an RLIMIT_AS."""
    with open(HARNESS, "rb") as binary:
        return b"__asan_init" in binary.read()


class ReportTargets(unittest.TestCase):
    """--json, --junit and golden regen's --manifest: a regular file is replaced atomically;
    anything else is written through and stays what it was; a symlink is never replaced."""

    def test_json_report_into_a_fifo_is_written_through(self):
        fifo = os.path.join(scratch("fifo"), "report.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=read_fifo, args=(fifo, got))
        reader.start()
        r = run(CONTRACT_ONLY + ["--json", fifo])
        reader.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
        self.assertEqual(json.loads(b"".join(got))["suites"][0]["suite"], "contract")

    def test_report_into_a_fifo_nobody_reads_fails_at_once(self):
        # It used to block forever in open().
        fifo = os.path.join(scratch("fifo_no_reader"), "report.fifo")
        os.mkfifo(fifo)
        r = run(CONTRACT_ONLY + ["--json", fifo], timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no process reads the FIFO", r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_report_into_a_character_device_keeps_the_device(self):
        folder = scratch("chardev")
        null, full = os.path.join(folder, "null"), os.path.join(folder, "full")
        try:
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        except PermissionError:
            self.skipTest("cannot make device nodes here (not root)")
        r = run(CONTRACT_ONLY + ["--junit", null])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode), "the null device was replaced by a file")
        r = run(CONTRACT_ONLY + ["--json", full])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot write", r.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(full).st_mode), "the full device was replaced by a file")

    def test_report_through_a_symlink_keeps_the_link(self):
        folder = scratch("symlink")
        target = os.path.join(folder, "real.json")
        with open(target, "w") as fh:
            fh.write("old")
        link = os.path.join(folder, "link.json")
        os.symlink("real.json", link)
        r = run(CONTRACT_ONLY + ["--json", link])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(link), "the symlink was replaced by a file")
        with open(target) as fh:
            self.assertEqual(json.load(fh)["suites"][0]["suite"], "contract")
        self.assertEqual(sorted(os.listdir(folder)), ["link.json", "real.json"])

    def test_report_to_proc_self_fd_1_reaches_stdout(self):
        r = run(CONTRACT_ONLY + ["--json", "/proc/self/fd/1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"suite": "contract"', r.stdout)

    def appended_log(self, name, target, stream="stdout"):
        """Runs the contract suite with --json (or --junit for stderr) `target` while `stream`
        is appended (>>) to a log holding one line; returns (exit status, log bytes, whether
        the log is still the same file)."""
        log = os.path.join(scratch(name), "ci.log")
        with open(log, "wb") as fh:
            fh.write(b"an earlier line\n")
        inode = os.stat(log).st_ino
        option = "--junit" if stream == "stderr" else "--json"
        with open(log, "ab") as fh:
            r = subprocess.run([HARNESS] + CONTRACT_ONLY + [option, target], timeout=120,
                               stdout=fh if stream == "stdout" else subprocess.DEVNULL,
                               stderr=fh if stream == "stderr" else subprocess.DEVNULL)
        with open(log, "rb") as fh:
            return r.returncode, fh.read(), os.stat(log).st_ino == inode

    def test_report_to_dev_stdout_appended_to_a_log_keeps_the_log(self):
        # It used to replace ci.log by rename: its earlier lines were gone.
        for target in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"):
            with self.subTest(target):
                status, data, same = self.appended_log("append_" + target.replace("/", "_"), target)
                self.assertEqual(status, 0, data)
                self.assertTrue(same, "the log was replaced by another file")
                self.assertTrue(data.startswith(b"an earlier line\n"), data[:200])
                self.assertIn(b'"suite": "contract"', data)

    def test_junit_to_dev_stderr_appended_to_a_log_keeps_the_log(self):
        status, data, same = self.appended_log("append_stderr", "/dev/stderr", stream="stderr")
        self.assertEqual(status, 0, data)
        self.assertTrue(same and data.startswith(b"an earlier line\n"), data[:200])
        self.assertIn(b"<testsuite", data)

    def test_atomic_replace_refuses_what_it_may_not_replace(self):
        folder = scratch("not_replaceable")
        read_only = os.path.join(folder, "read-only.json")
        with open(read_only, "w") as fh:
            fh.write("kept")
        os.chmod(read_only, 0o444)
        linked = os.path.join(folder, "linked.json")
        with open(linked, "w") as fh:
            fh.write("kept")
        os.link(linked, os.path.join(folder, "other-name.json"))
        for target, why in ((read_only, "read-only"), (linked, "hard links")):
            with self.subTest(target):
                r = run(CONTRACT_ONLY + ["--json", target])
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(why, r.stderr)
                with open(target) as fh:
                    self.assertEqual(fh.read(), "kept")
        self.assertEqual(sorted(os.listdir(folder)), ["linked.json", "other-name.json", "read-only.json"])

    def test_atomic_replace_keeps_the_mode_and_takes_long_names(self):
        folder = scratch("replace_mode")
        target = os.path.join(folder, "r" * 250 + ".json")  # 255 bytes: no room for a temporary's suffix
        with open(target, "w") as fh:
            fh.write("old")
        os.chmod(target, 0o640)
        r = run(CONTRACT_ONLY + ["--json", target])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)
        with open(target) as fh:
            self.assertEqual(json.load(fh)["suites"][0]["suite"], "contract")
        self.assertEqual(os.listdir(folder), [os.path.basename(target)])

    def test_regen_manifest_to_a_full_device_replaces_nothing(self):
        # It used to replace every case file, then fail on the manifest, saying "nothing was
        # replaced", and to leave its journal at /dev/full.regen-journal.
        work = copy_golden("regen_dev_full")
        cases = os.path.join(work, "cases")
        os.remove(os.path.join(cases, sorted(os.listdir(cases))[0]))  # regen must write this file again
        before = snapshot(work)
        r = run(["golden", "regen", "--dir", cases, "--manifest", "/dev/full"], timeout=600)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("nothing was replaced", r.stderr)
        self.assertEqual(snapshot(work), before)
        self.assertFalse(os.path.exists("/dev/full.regen-journal"))

    def test_regen_manifest_to_a_device_without_dir_is_a_usage_error(self):
        r = run(["golden", "regen", "--manifest", "/dev/null"], timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("give --dir", r.stderr)
        self.assertFalse(os.path.exists("/dev/cases"))

    def test_regen_manifest_symlink_is_kept(self):
        work = copy_golden("regen_manifest_link")
        os.rename(os.path.join(work, "manifest.json"), os.path.join(work, "real-manifest.json"))
        os.symlink("real-manifest.json", os.path.join(work, "manifest.json"))
        with open(os.path.join(work, "real-manifest.json"), "a") as fh:
            fh.write("\n")  # regen must rewrite it
        r = run(["golden", "regen", "--dir", os.path.join(work, "cases"), "--manifest",
                 os.path.join(work, "manifest.json")], timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(os.path.join(work, "manifest.json")), "the manifest's symlink was replaced")
        with open(os.path.join(work, "real-manifest.json"), "rb") as fh, \
                open(os.path.join(GOLDEN, "manifest.json"), "rb") as committed:
            self.assertEqual(fh.read(), committed.read())


    def test_regen_manifest_into_a_fifo_is_written_through(self):
        work = scratch("regen_manifest_fifo")
        fifo = os.path.join(work, "manifest.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=read_fifo, args=(fifo, got, 90))
        reader.start()
        r = run(["golden", "regen", "--dir", os.path.join(work, "cases"), "--manifest", fifo], timeout=90)
        reader.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
        self.assertEqual(json.loads(b"".join(got))["format"], "kda-golden-manifest/1")


class RegenFolder(unittest.TestCase):
    """golden regen --dir removes only what the previous manifest listed, and its commit is
    all or nothing, even when the process is killed in the middle of it."""

    def regen(self, work, **kw):
        return run(["golden", "regen", "--dir", os.path.join(work, "cases"), "--manifest",
                    os.path.join(work, "manifest.json")], timeout=600, **kw)

    def test_regen_leaves_files_it_did_not_list(self):
        work = copy_golden("regen_foreign")
        cases = os.path.join(work, "cases")
        with open(os.path.join(cases, "model-00001-of-00002.safetensors"), "wb") as fh:
            fh.write(b"weights that are not ours")
        r = self.regen(work)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(cases, "model-00001-of-00002.safetensors")),
                        "regen deleted a file no manifest listed")
        self.assertIn("model-00001-of-00002.safetensors", r.stdout)
        self.assertIn("left", r.stdout)

    def test_regen_refuses_to_replace_a_foreign_manifest(self):
        work = copy_golden("regen_foreign_manifest")
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            fh.write('{"someone": "else"}')
        before = snapshot(work)
        r = self.regen(work)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no golden manifest", r.stderr)
        self.assertEqual(snapshot(work), before)

    def test_regen_refuses_to_replace_a_case_file_no_manifest_listed(self):
        work = copy_golden("regen_foreign_case")
        with open(os.path.join(work, "manifest.json")) as fh:
            manifest = json.load(fh)
        foreign = manifest["cases"].pop(0)
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        with open(os.path.join(work, foreign["file"]), "wb") as fh:
            fh.write(b"someone else's file")
        before = snapshot(work)
        r = self.regen(work)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no previous manifest lists it", r.stderr)
        self.assertEqual(snapshot(work), before)

    def test_regen_neither_reads_nor_replaces_a_case_path_that_is_no_regular_file(self):
        # A case-named FIFO without a writer blocked regen forever; a case-named symlink to
        # /dev/zero (or /dev/full) was read until bad_alloc.
        for kind in ("fifo", "symlink"):
            with self.subTest(kind):
                work = copy_golden("regen_odd_case_path_" + kind)
                case = os.path.join(work, "cases", sorted(os.listdir(os.path.join(work, "cases")))[0])
                os.remove(case)
                if kind == "fifo":
                    os.mkfifo(case)
                else:
                    os.symlink("/dev/zero", case)
                r = self.regen(work)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("is no regular file", r.stderr)
                self.assertTrue(stat.S_ISFIFO(os.lstat(case).st_mode) if kind == "fifo" else os.path.islink(case))

    def test_regen_dir_with_a_trailing_slash_writes_the_manifest_beside_it(self):
        work = scratch("regen_trailing_slash")
        r = run(["golden", "regen", "--dir", os.path.join(work, "cases") + "/"], timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(work, "manifest.json")))
        self.assertFalse(os.path.exists(os.path.join(work, "cases", "manifest.json")))

    def test_regen_dir_that_cannot_be_a_folder_is_exit_2(self):
        folder = scratch("regen_dir_file")
        a_file = os.path.join(folder, "a-file")
        with open(a_file, "w") as fh:
            fh.write("x")
        r = run(["golden", "regen", "--dir", a_file, "--manifest", os.path.join(folder, "manifest.json")])
        self.assertEqual(r.returncode, 2, r.stderr)

    def test_regen_removes_a_file_the_previous_manifest_listed(self):
        work = copy_golden("regen_listed")
        with open(os.path.join(work, "manifest.json")) as fh:
            manifest = json.load(fh)
        extra = dict(manifest["cases"][0], name="retired_case", file="cases/retired_case.safetensors")
        manifest["cases"].append(extra)
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        with open(os.path.join(work, "cases", "retired_case.safetensors"), "wb") as fh:
            fh.write(b"a case the catalog no longer has")
        r = self.regen(work)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(work, "cases", "retired_case.safetensors")))
        self.assertIn("removed  retired_case.safetensors", r.stdout)
        self.assertEqual(snapshot(os.path.join(work, "cases")), snapshot(os.path.join(GOLDEN, "cases")))

    def damaged_set(self, name):
        """A copy of the set in which regen has 30 case files and the manifest to replace."""
        work = copy_golden(name)
        cases = os.path.join(work, "cases")
        for f in sorted(os.listdir(cases))[:30]:
            with open(os.path.join(cases, f), "r+b") as fh:
                fh.seek(-8, os.SEEK_END)
                fh.write(b"\x01" * 8)
        with open(os.path.join(work, "manifest.json"), "a") as fh:
            fh.write("\n")
        return work

    def test_a_kill_during_the_commit_never_leaves_a_mixed_set(self):
        shim = os.environ.get("KDA_KILL_SHIM", "")
        if not shim:
            self.skipTest("KDA_KILL_SHIM (the rename-counting kill shim) is not set")
        for kill_at in (1, 2, 20):
            with self.subTest(kill_at=kill_at):
                work = self.damaged_set(f"regen_kill_{kill_at}")
                before = snapshot(work)
                env = dict(os.environ, LD_PRELOAD=shim, KDA_KILL_AT_RENAME=str(kill_at),
                           ASAN_OPTIONS="verify_asan_link_order=0")  # an ASan build: the shim comes first
                r = subprocess.run([HARNESS, "golden", "regen", "--dir", os.path.join(work, "cases"), "--manifest",
                                    os.path.join(work, "manifest.json")], env=env, capture_output=True, text=True,
                                   timeout=600)
                self.assertEqual(r.returncode, -9, "the shim did not kill regen: " + r.stdout + r.stderr)
                # Either the old set is whole (a verify passes nothing new: it fails as it did
                # before the kill, on the 30 damaged files) or verify says a commit is pending.
                v = run(["golden", "verify", "--backend", "reference", "--manifest",
                         os.path.join(work, "manifest.json")], timeout=600)
                after = snapshot(work)
                pending = "interrupted golden regen" in v.stdout
                if not pending:
                    stray = sorted(set(after) - set(before))
                    self.assertTrue(all(p.endswith(".regen-tmp") for p in stray), stray)
                    for p, data in before.items():
                        self.assertEqual(after.get(p), data, p + " changed before the commit point")
                self.assertNotEqual(v.returncode, 0, v.stdout)
                # The next regen finishes (or redoes) the commit and leaves nothing of its own behind.
                r = self.regen(work)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertEqual(snapshot(os.path.join(work, "cases")), snapshot(os.path.join(GOLDEN, "cases")))
                self.assertEqual(sorted(os.listdir(work)), ["cases", "manifest.json"])
                with open(os.path.join(work, "manifest.json"), "rb") as fh, \
                        open(os.path.join(GOLDEN, "manifest.json"), "rb") as committed:
                    self.assertEqual(fh.read(), committed.read())

    def test_regen_cleans_temporaries_a_killed_regen_left(self):
        work = copy_golden("regen_stale")
        cases = os.path.join(work, "cases")
        stale = os.path.join(cases, "kda_replayssm.gqa_ratio_2.safetensors.regen-tmp")
        with open(stale, "wb") as fh:
            fh.write(b"half a file")
        foreign = os.path.join(cases, "notes.tmp")
        with open(foreign, "w") as fh:
            fh.write("mine")
        r = self.regen(work)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(stale), "a stale temporary of regen was left")
        self.assertTrue(os.path.exists(foreign), "regen deleted a file it did not make")


def index_values(header, body, name, value):
    """body with every element of the index tensor `name` set to value."""
    begin, end = header[name]["data_offsets"]
    code = "i" if header[name]["dtype"] == "I32" else "q"
    count = (end - begin) // struct.calcsize(code)
    return body[:begin] + struct.pack(f"<{count}{code}", *([value] * count)) + body[end:]


def reshaped(header, name, shape):
    """header with tensor `name` declared of another shape of as many elements."""
    header = json.loads(json.dumps(header))
    header[name]["shape"] = shape
    return header


class LyingFiles(unittest.TestCase):
    """A case file whose index values or expected shapes lie: `case FILE` and `golden verify`
    say what is wrong and fail; they never read outside a tensor (they used to die of SIGSEGV)."""

    STEP = "kda_replayssm.dtype_bf16_bf16_bf16_bf16"  # B=3 slots=4 L=3, kda_replayssm, 1 step
    ROLLOUT = "kda_replayssm.gqa_ratio_1"             # 2 steps
    PACKED = "kda_packed_decode.dtype_bf16_bf16_bf16"

    def lies(self):
        """(label, case, lie) for each lie; lie(header, body) -> (header, body)."""
        huge = 2**31 - 1
        return [
            ("huge_write_pos", self.STEP, lambda h, b: (h, index_values(h, b, "write_pos", huge))),
            ("negative_write_pos", self.STEP, lambda h, b: (h, index_values(h, b, "write_pos", -7))),
            ("huge_slot", self.STEP, lambda h, b: (h, index_values(h, b, "ssm_state_indices", huge))),
            ("huge_write_pos_at_step_1", self.ROLLOUT, lambda h, b: (h, index_values(h, b, "step1.write_pos", huge))),
            ("packed_huge_write_pos", self.PACKED, lambda h, b: (h, index_values(h, b, "write_pos", huge))),
            ("expected_k_ring_of_rank_2", self.STEP, lambda h, b: (reshaped(h, "expected.k_cache", [4, 24]), b)),
            ("expected_d_ring_with_huge_slots", self.STEP,
             lambda h, b: (reshaped(h, "expected.d_cache", [384, 1, 1, 1]), b)),
            ("expected_state_of_rank_1", self.STEP, lambda h, b: (reshaped(h, "expected.initial_state", [1024]), b)),
            ("expected_out_of_other_shape", self.STEP, lambda h, b: (reshaped(h, "expected.out", [1, 1, 6, 16]), b)),
        ]

    def lying_set(self, name):
        """A copy of the golden set whose manifest lists only the lying cases, with their hashes."""
        work = scratch(name)
        os.makedirs(os.path.join(work, "cases"))
        with open(os.path.join(GOLDEN, "manifest.json")) as fh:
            manifest = json.load(fh)
        by_name = {c["name"]: c for c in manifest["cases"]}
        manifest["cases"] = []
        for label, case, lie in self.lies():
            header, body = read_safetensors(os.path.join(GOLDEN, "cases", case + ".safetensors"))
            header, body = lie(header, body)
            header["__metadata__"]["kda.name"] = label
            path = os.path.join(work, "cases", label + ".safetensors")
            write_safetensors(path, header, body)
            with open(path, "rb") as fh:
                data = fh.read()
            manifest["cases"].append(dict(by_name[case], name=label, file=f"cases/{label}.safetensors",
                                          bytes=len(data), sha256=hashlib.sha256(data).hexdigest()))
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        return work

    def test_case_on_a_lying_file_fails_with_a_message(self):
        work = self.lying_set("lying_case")
        for label, _, _ in self.lies():
            with self.subTest(label):
                r = run(["case", os.path.join(work, "cases", label + ".safetensors")])
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertRegex(r.stdout + r.stderr, r"is no valid call|like the tensor it is compared with")

    def test_golden_verify_of_lying_files_fails_each(self):
        work = self.lying_set("lying_verify")
        told = 0
        for op in ("kda_replayssm", "kda_packed_decode"):  # verify judges one operator's cases
            r = run(["golden", "verify", "--backend", "reference", "--op", op, "--manifest",
                     os.path.join(work, "manifest.json")], timeout=300)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            told += len(re.findall(r"is no valid call|like the tensor it is compared with", r.stdout))
        self.assertEqual(told, len(self.lies()))


def peak_rss_bytes(args):
    """Runs the harness; (its exit status, its peak resident set in bytes, its output)."""
    p = subprocess.Popen([HARNESS] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_maxrss * 1024, out.decode(errors="replace")


class BigFiles(unittest.TestCase):
    """A case file is read once, straight into its tensors: `case FILE` and `golden verify` hold
    about one file's worth, not the file's bytes and its tensors at once (they held 4 to 5)."""

    CASE = "kda_replayssm.dtype_bf16_bf16_bf16_bf16"
    BALLAST = 128 << 20  # bytes of an extra tensor the case does not use

    def big_set(self, name):
        """A set of one case: a golden case plus the extra tensor (a hole: zeros on no disk)."""
        work = scratch(name)
        os.makedirs(os.path.join(work, "cases"))
        small = os.path.join(GOLDEN, "cases", self.CASE + ".safetensors")
        header, body = read_safetensors(small)
        header["ballast"] = {"dtype": "F32", "shape": [self.BALLAST // 4],
                             "data_offsets": [len(body), len(body) + self.BALLAST]}
        path = os.path.join(work, "cases", self.CASE + ".safetensors")
        write_safetensors(path, header, body)
        with open(path, "r+b") as fh:
            fh.truncate(os.path.getsize(path) + self.BALLAST)
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        with open(os.path.join(GOLDEN, "manifest.json")) as fh:
            manifest = json.load(fh)
        entry = next(c for c in manifest["cases"] if c["name"] == self.CASE)
        manifest["cases"] = [dict(entry, bytes=os.path.getsize(path), sha256=digest.hexdigest())]
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        return small, path, os.path.join(work, "manifest.json")

    def test_case_and_golden_verify_hold_a_big_file_once(self):
        small, big, manifest = self.big_set("big_case")
        status, baseline, out = peak_rss_bytes(["case", small])
        self.assertEqual(status, 0, out)
        for args in (["case", big], ["golden", "verify", "--backend", "reference", "--manifest", manifest]):
            with self.subTest(args[0]):
                status, peak, out = peak_rss_bytes(args)
                self.assertEqual(status, 0, out)
                self.assertLess(peak - baseline, 1.3 * self.BALLAST,
                                f"peak {peak >> 20} MiB over a baseline of {baseline >> 20} MiB")


class NothingVerifiedIsNotAPass(unittest.TestCase):
    """A verification that verified nothing, or verified a file as something it is not, fails."""

    def manifest_with(self, name, cases):
        work = scratch(name)
        with open(os.path.join(GOLDEN, "manifest.json")) as fh:
            manifest = json.load(fh)
        manifest["cases"] = cases
        path = os.path.join(work, "manifest.json")
        with open(path, "w") as fh:
            json.dump(manifest, fh)
        return work, path

    def test_verify_of_an_empty_manifest_fails(self):
        _, path = self.manifest_with("empty_manifest", [])
        r = run(["golden", "verify", "--backend", "reference", "--manifest", path])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("nothing verified", r.stdout)

    def test_check_golden_with_nothing_verified_fails(self):
        _, path = self.manifest_with("empty_manifest_check", [])
        r = run(["check", "--suites", "golden", "--no-progress", "--manifest", path])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("nothing verified", r.stdout)

    def test_verify_fails_on_an_entry_whose_file_names_another_operator(self):
        work = copy_golden("relabelled_entry")
        with open(os.path.join(work, "manifest.json")) as fh:
            manifest = json.load(fh)
        packed = [c for c in manifest["cases"] if c.get("op") == "kda_packed_decode"]
        del packed[0]["op"]  # the manifest now says kda_replayssm; the file still says packed decode
        with open(os.path.join(work, "manifest.json"), "w") as fh:
            json.dump(manifest, fh)
        r = run(["golden", "verify", "--backend", "reference", "--manifest", os.path.join(work, "manifest.json")])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(packed[0]["name"], r.stdout)
        self.assertIn("kda_packed_decode", r.stdout)

    def test_missing_or_malformed_manifest_is_a_usage_error(self):
        r = run(["golden", "verify", "--backend", "reference", "--manifest", os.path.join(WORK, "none", "m.json")])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        bad = os.path.join(scratch("malformed_manifest"), "manifest.json")
        with open(bad, "w") as fh:
            fh.write("{not json")
        r = run(["golden", "verify", "--backend", "reference", "--manifest", bad])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        r = run(["check", "--suites", "golden", "--no-progress", "--manifest", bad])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_case_file_relabelled_as_another_operator_fails(self):
        header, body = read_safetensors(os.path.join(GOLDEN, "cases", "kda_packed_decode.gqa_ratio_2.safetensors"))
        self.assertEqual(header["__metadata__"].pop("kda.op"), "kda_packed_decode")
        path = os.path.join(scratch("relabelled_case"), "relabelled.safetensors")
        write_safetensors(path, header, body)
        r = run(["case", path])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("kda.call", r.stdout)

    def test_case_on_the_reference_is_bit_exact(self):
        header, body = read_safetensors(os.path.join(GOLDEN, "cases", "kda_replayssm.gqa_ratio_2.safetensors"))
        name = next(k for k in sorted(header) if k.endswith("expected.out"))
        begin, end = header[name]["data_offsets"]
        size = {"BF16": 2, "F16": 2, "F32": 4}[header[name]["dtype"]]
        first = next(i for i in range(begin, end, size) if any(body[i:i + size]))  # not a padding row's zero
        body = bytearray(body)
        body[first] ^= 1  # the lowest mantissa bit of one output: one ulp, well within any tolerance
        path = os.path.join(scratch("one_ulp"), "one_ulp.safetensors")
        write_safetensors(path, header, bytes(body))
        r = run(["case", path, "--backend", "reference"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("bit for bit", r.stdout)


def odd_plugin(way):
    """A plugin wrong in one way (tools/tests/odd_plugin.cpp)."""
    path = os.path.join(os.environ.get("KDA_ODD_PLUGINS", ""), f"libkda_odd_plugin_{way}.so")
    if not os.path.exists(path):
        raise unittest.SkipTest(f"{path} is not built")
    return path


class BadArguments(unittest.TestCase):
    """Arguments that make no sense are usage errors (exit 2) with a message; nothing aborts."""

    def assertUsage(self, args, needle, **kw):
        r = run(args, **kw)
        self.assertEqual(r.returncode, 2, " ".join(args) + ": " + r.stdout + r.stderr)
        self.assertIn(needle, r.stderr, " ".join(args))
        return r

    def test_check_survives_threads_it_cannot_start(self):
        # -j 100000 is capped to a few threads per hardware thread, and said so.
        r = run(["check", "--suites", "contract", "--cases", "contract=300", "--no-progress", "-j", "100000"],
                timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("worker threads (at most", r.stderr)
        if sanitized():
            self.skipTest("address-space limits do not apply under AddressSanitizer (it reserves terabytes)")
        # Thread stacks of 1.5 GiB in 2.5 GiB of address space: the first worker starts, the
        # second cannot; the cases go to the one that did, one at a time (little heap needed).
        r = run(["check", "--suites", "contract", "--cases", "contract=3000", "--no-progress", "-j", "16"],
                limits={resource.RLIMIT_STACK: 3 << 29, resource.RLIMIT_AS: 5 << 29}, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("started 1 of 16 worker threads", r.stderr)
        self.assertUsage(["check", "--suites", "contract", "-j", "-3"], "--jobs")

    def test_validate_refuses_input_over_its_limit_before_reading_it(self):
        big = os.path.join(scratch("validate_big"), "big.json")
        with open(big, "wb") as fh:
            fh.truncate(65 << 20)  # sparse: 65 MiB of zeros
        self.assertUsage(["validate", big], "64 MiB")
        # An endless file or stream must not be read into memory (512 MiB of address space).
        if sanitized():
            self.skipTest("address-space limits do not apply under AddressSanitizer (it reserves terabytes)")
        for args in (["validate", "/dev/zero"], ["validate", "-"]):
            with open("/dev/zero", "rb") as zero:
                r = run(args, stdin=zero, limits={resource.RLIMIT_AS: 512 << 20}, timeout=60)
            self.assertEqual(r.returncode, 2, " ".join(args) + ": " + r.stderr)
            self.assertIn("64 MiB", r.stderr)

    def test_budgets_and_scale_must_be_finite_positive_and_sane(self):
        for value in ("nan", "inf", "-1", "0", "1e300"):
            self.assertUsage(["case", "--memory-budget", value, "B=2"], "--memory-budget")
            self.assertUsage(["case", "--work-budget", value, "B=2"], "--work-budget")
            for option in ("--scale", "--work-budget", "--gpu-work-budget"):
                self.assertUsage(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress", option, value],
                                 option)

    def test_case_timeout_must_be_a_finite_number(self):
        # NaN used to be accepted, as no limit at all.
        for value in ("nan", "inf", "-1"):
            self.assertUsage(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress",
                              "--case-timeout", value], "--case-timeout")

    def test_json_with_many_objects_in_one_object_is_read_in_linear_time(self):
        # The duplicate-key check went through nlohmann's parser callback, which scans the
        # enclosing object again at every inner object's end: 40k object keys took 8 s in
        # validate, a 40k-tensor case file 14 s. Both are refused or judged at once now.
        folder = scratch("many_keys")
        call = example("validate_call.json")
        call.update({f"k{i}": {"a": i} for i in range(150_000)})
        path = os.path.join(folder, "call.json")
        with open(path, "w") as fh:
            json.dump(call, fh)
        start = time.monotonic()
        self.assertUsage(["validate", path], "unknown key", timeout=30)
        header, body = read_safetensors(os.path.join(GOLDEN, "cases", "kda_replayssm.dtype_bf16_bf16_bf16_bf16.safetensors"))
        header.update({f"empty{i}": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]} for i in range(150_000)})
        path = os.path.join(folder, "many.safetensors")
        write_safetensors(path, header, body)
        r = run(["case", path], timeout=30)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertLess(time.monotonic() - start, 30)

    def test_case_counts_of_an_unknown_suite_are_refused(self):
        self.assertUsage(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress", "--cases", "nosuite=5"],
                         "nosuite")

    def test_seeds_that_do_not_fit_are_refused(self):
        for seed in ("-1", "18446744073709551616", "1e3"):
            self.assertUsage(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress", "--seed", seed],
                             "--seed")

    def test_mutants_in_a_folder_that_is_not_there_is_a_usage_error(self):
        r = run(["mutants", "--dir", os.path.join(WORK, "no-such-folder")])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("is no folder", r.stderr)

    def test_mutants_of_an_installed_harness_say_where_the_planted_bugs_come_from(self):
        """An installed kda-harness (pip, cmake --install) has no planted-bug plugins beside it:
        mutants says a CMake build makes them and --dir names its folder, whether the default
        folder is missing or empty."""
        prefix = scratch("installed-mutants")
        os.makedirs(os.path.join(prefix, "bin"))
        installed = os.path.join(prefix, "bin", "kda-harness")
        shutil.copy2(HARNESS, installed)
        for code in (2, 1):  # no plugins folder beside bin/, then an empty one
            r = subprocess.run([installed, "mutants", "--cases", "2"], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, code, r.stdout + r.stderr)
            self.assertIn("built by a CMake build of the repository, KDA_BUILD_MUTANTS=ON", r.stdout + r.stderr)
            self.assertIn("--dir names its build/plugins folder", r.stdout + r.stderr)
            os.makedirs(os.path.join(prefix, "plugins"), exist_ok=True)

    def test_negative_gpu_numbers_are_refused(self):
        self.assertUsage(["case", "--backend", "cuda:-1", "B=2"], "cuda:-1")
        self.assertUsage(["check", "--suites", "contract", "--cases", "contract=5", "--no-progress", "--gpus", "-1"], "-1")

    def test_unknown_or_unloadable_backends_are_usage_errors(self):
        self.assertUsage(["case", "--backend", "tpu", "B=2"], "tpu")
        missing = os.path.join(WORK, "no-such-plugin.so")
        self.assertUsage(["case", "--backend", "plugin:" + missing, "B=2"], missing)
        self.assertUsage(["golden", "verify", "--backend", "plugin:" + missing], missing)
        self.assertUsage(["golden", "verify", "--backend", "tpu"], "tpu")

    def test_mutants_on_cuda_without_a_gpu_is_a_usage_error(self):
        if "CUDA kernel compiled" not in run(["--version"]).stdout:
            self.skipTest("the CUDA kernel is not compiled in this build")
        r = run(["mutants", "--backend", "cuda", "--cases", "2"], timeout=300)
        if r.returncode == 0:
            self.skipTest("a GPU is usable here")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertNotIn("SURVIVED", r.stdout)
        self.assertIn("GPU", r.stderr)

    def test_plugins_with_an_empty_or_reversed_envelope_are_refused_at_load(self):
        for way in ("empty_envelope", "reversed_envelope"):
            r = self.assertUsage(["case", "--backend", "plugin:" + odd_plugin(way), "B=2"], "envelope")
            self.assertNotIn("FAIL", r.stdout)

    def test_plugin_text_that_is_not_utf8_is_escaped_in_reports(self):
        out = scratch("utf8")
        report, junit = os.path.join(out, "r.json"), os.path.join(out, "r.xml")
        r = run(["check", "--backend", "plugin:" + odd_plugin("bad_utf8"), "--suites", "kernel", "--cases", "kernel=3",
                 "--no-progress", "--json", report, "--junit", junit], timeout=300)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # every case refused: failed, and reported
        with open(report, encoding="utf-8") as fh:
            text = fh.read()
        json.loads(text)
        self.assertIn("\\xff", text)
        ET.parse(junit)

    def test_case_refusal_names_the_field_that_is_wrong(self):
        for config, field in (("B=2 H=3 HV=4", "HV"), ("B=2 K=17", "K"), ("B=6 slots=5", "slots"),
                              ("B=2 pad=1.5", "pad"), ("B=2 lb=100", "lb")):
            r = self.assertUsage(["case", config], field)
            self.assertIn("valid call: " + field + "=", r.stderr)


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
