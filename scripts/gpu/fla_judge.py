"""Judges flash-linear-attention's recurrent decode kernels (fla-core, installed with pip) on the
GPU through kda_harness.check, as a user would: every suite of each operator, over the general
sample space, restricted to K = V = 128, and on the model the operator serves (Kimi-Linear,
Qwen3-Next: its per-GPU heads at K = V = 128, batches 1..256). Writes a markdown table per operator (suite, cases,
failures, causes with a replay line each), rewritten after every suite so that a run cut short
keeps what it judged, and every failure in full.

Each (operator, sample, suite) runs in its own child process (--one), its cases in that process:
one CUDA context and one Triton compile per kernel variant for the suite, where a forked child
per case (check(isolate=True)) paid both every case (about 7 s a case on an H100). A child that
crashes or outlasts its share of the time costs its row, which says so; a child dies with the
judge (Linux's parent-death signal), so a judge killed by its caller's time limit leaves no
child holding the GPU.

usage: python fla_judge.py OUT_DIR [--n N] [--device cuda|cpu] [--sample SAMPLE ...]
                           [--op OP ...] [--suite SUITE ...] [--suite-seconds S] [--seconds S]
On the CPU, fla's Triton kernels run in Triton's interpreter (TRITON_INTERPRET=1, set here for
--device cpu): slowly, float32 throughout (no TF32), but the same indexing and masking.
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import kda_harness
from kda_harness.envelope import Envelope
from kda_harness.peers import fla

STEPS = {s.kda_op: s for s in (fla.kda_step, fla.gdn_step)}  # each judged as its operator
RUNS = {  # sample label: check() arguments beyond the step, for each operator
    "general": lambda op: {},
    "K=V=128": lambda op: {"restrict": Envelope(k=(128, 128), v=(128, 128))},
    # the model's per-GPU heads at K = V = 128, decode batches 1..256 as a server runs them
    "model": lambda op: {"model": {"fla_recurrent_kda": "kimi-linear-48b", "fla_recurrent_gdn": "qwen3-next-80b"}[op]},
}
SUITES = [s for s in kda_harness.suites() if s not in ("golden", "golden-kernel")]


def judge_one(op, label, suite, n, device, out):
    """One suite of one operator on one sample, in this process: writes its row and its report."""
    start = time.time()
    report = kda_harness.check(STEPS[op], device=device, framework="torch", suites=suite, n=n, **RUNS[label](op))
    causes = "; ".join(f"{len(cases)}x {cause or 'failed'}: `{cases[0].config}`"
                       for _, cause, cases in report.failure_groups())
    skipped = sum(c.skipped for c in report.cases)
    row = [label, suite, str(len(report.cases)) + (f" ({skipped} skipped)" if skipped else ""),
           str(len(report.failures)), causes or "-"]
    out.write_text(json.dumps({"row": row, "full": f"## {op} {label} {suite} ({time.time() - start:.0f} s)\n\n{report}\n"}))


def judge(ops, out, args, labels, deadline):
    """Every operator's suites, the operators interleaved (each suite of each sample in turn), so
    that a judge cut short has judged every operator on the first suites."""
    rows = {op: [] for op in ops}
    full = {op: [] for op in ops}
    head = {op: [f"### {op}: fla-core {fla.version()} `{STEPS[op].__name__}` on {args.device}" +
                 (" (Triton's interpreter)" if args.device == "cpu" else ""), "",
                 "| sample | suite | cases | failed | causes (count: first replay line) |", "|---|---|---|---|---|"]
            for op in ops}
    for label in labels:
        for suite in [s for s in SUITES if not args.suite or s in args.suite]:
            for op in ops:
                rows[op].append(judge_row(op, label, suite, out, args, deadline, full[op]))
                print((op,) + tuple(rows[op][-1]), flush=True)
                (out / f"{op}.md").write_text("\n".join(head[op] + [f"| {' | '.join(r)} |" for r in rows[op]]) + "\n")
                (out / f"{op}-failures.txt").write_text("\n".join(full[op]))


def die_with_parent():
    """In a child, before it runs: SIGKILL when the process that started it ends (prctl's
    PR_SET_PDEATHSIG); nothing where the C library has no prctl."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def judge_row(op, label, suite, out, args, deadline, full):
    """One suite in its own child process: its table row (the reason where it gave none)."""
    limit = min(args.suite_seconds, deadline - time.time())
    if limit < 5:
        return [label, suite, "-", "-", "not run: the judge's time ran out"]
    result = out / f".{op}-{label}-{suite}.json".replace("=", "")
    result.unlink(missing_ok=True)
    cmd = [sys.executable, __file__, str(out), "--one", op, label, suite, "--device", args.device] + \
          (["--n", str(args.n)] if args.n else [])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        return [label, suite, "-", "-", f"not finished in {limit:.0f} s (killed)"]
    if not result.exists():
        return [label, suite, "-", "-", f"the child ended with status {proc.returncode} and no report: "
                + proc.stderr.strip()[-300:].replace("\n", " ")]
    data = json.loads(result.read_text())
    result.unlink()
    full.append(data["full"])
    return data["row"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--n", type=int, default=None, help="cases per suite (default: the harness's)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--sample", action="append", choices=list(RUNS),
                   help="judge only this sample (repeatable; default: every one). In the interpreter, general alone: "
                        "K = V = 128 at production batches outlasts --suite-seconds")
    p.add_argument("--op", action="append", choices=list(STEPS),
                   help="judge only this operator's step (repeatable; default: every one)")
    p.add_argument("--suite", action="append", choices=SUITES, help="judge only this suite (repeatable; default: every one)")
    p.add_argument("--suite-seconds", type=float, default=300, help="the most one suite's child may take")
    p.add_argument("--seconds", type=float, default=1e9, help="the whole judge's time; rows past it say so")
    p.add_argument("--one", nargs=3, metavar=("OP", "SAMPLE", "SUITE"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if a.one:
        op, label, suite = a.one
        judge_one(op, label, suite, a.n, a.device, out / f".{op}-{label}-{suite}.json".replace("=", ""))
        return
    labels = [label for label in RUNS if not a.sample or label in a.sample]
    deadline = time.time() + a.seconds
    # This process never touches the GPU: each child makes its own CUDA context.
    print("fla-core", fla.version(), flush=True)
    judge([op for op in STEPS if not a.op or op in a.op], out, a, labels, deadline)


if __name__ == "__main__":
    main()
