"""Judges other projects' decode kernels, installed with pip, on the GPU through kda_harness.check,
as a user would: every suite of each step (kda_harness.peers: flash-linear-attention's recurrent
KDA and GDN decodes, SGLang's CuTe-DSL KDA decode, FlashInfer's GDN decode), over the general
sample space, restricted to K = V = 128, and on the model its operator serves (Kimi-Linear,
Qwen3-Next: its per-GPU heads at K = V = 128, batches 1..256). A step serving one mode of its
operator (its kda_pin) is judged in that mode. Writes a markdown table per step (suite, cases,
failures, causes with a replay line each), rewritten after every suite so that a run cut short
keeps what it judged, and every failure in full.

Each (step, sample, suite) runs in its own child process (--one), its cases in that process:
one CUDA context and one compile per kernel variant for the suite, where a forked child per case
(check(isolate=True)) paid both every case (about 7 s a case on an H100). A child that crashes or
outlasts its share of the time costs its row, which says so; a child dies with the judge
(Linux's parent-death signal), so a judge killed by its caller's time limit leaves no child
holding the GPU.

usage: python peer_judge.py OUT_DIR [--n N] [--device cuda|cpu] [--sample SAMPLE ...]
                            [--step STEP ...] [--suite SUITE ...] [--suite-seconds S] [--seconds S]
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
from kda_harness.peers import fla, flashinfer, sglang_cutedsl

# Each judged as its operator (the step's kda_op), by "module.step"; the library's distribution
# and version for the table's heading.
PEERS = {"fla": ("fla-core", fla), "sglang_cutedsl": ("sglang", sglang_cutedsl), "flashinfer": ("flashinfer-python", flashinfer)}
STEPS = {f"{module}.{step.__name__}": step for module, step in (
    ("fla", fla.kda_step), ("fla", fla.gdn_step), ("sglang_cutedsl", sglang_cutedsl.kda_step),
    ("flashinfer", flashinfer.gdn_step))}
RUNS = {  # sample label: check() arguments beyond the step, for each operator
    "general": lambda op: {},
    "K=V=128": lambda op: {"restrict": Envelope(k=(128, 128), v=(128, 128))},
    # the model's per-GPU heads at K = V = 128, decode batches 1..256 as a server runs them
    "model": lambda op: {"model": {"fla_recurrent_kda": "kimi-linear-48b", "fla_recurrent_gdn": "qwen3-next-80b"}[op]},
}
SUITES = [s for s in kda_harness.suites() if s not in ("golden", "golden-kernel")]


def judge_one(name, label, suite, n, device, out):
    """One suite of one step on one sample, in this process: writes its row and its report."""
    start = time.time()
    step = STEPS[name]
    report = kda_harness.check(step, device=device, framework="torch", suites=suite, n=n, **RUNS[label](step.kda_op))
    causes = "; ".join(f"{len(cases)}x {cause or 'failed'}: `{cases[0].config}`"
                       for _, cause, cases in report.failure_groups())
    skipped = sum(c.skipped for c in report.cases)
    row = [label, suite, str(len(report.cases)) + (f" ({skipped} skipped)" if skipped else ""),
           str(len(report.failures)), causes or "-"]
    out.write_text(json.dumps({"row": row, "full": f"## {name} {label} {suite} ({time.time() - start:.0f} s)\n\n{report}\n"}))


def heading(name, device):
    """The table's heading: the library, its version, the function, the operator, the pin."""
    distribution, module = PEERS[name.split(".")[0]]
    step = STEPS[name]
    pin = getattr(step, "kda_pin", None)
    return (f"### {distribution} {module.version()} `{name}` as {step.kda_op} on {device}" +
            (" (Triton's interpreter)" if device == "cpu" else "") + (f", pinned `{pin}`" if pin else ""))


def judge(names, out, args, labels, deadline):
    """Every step's suites, the steps interleaved (each suite of each sample in turn), so that a
    judge cut short has judged every step on the first suites."""
    rows = {name: [] for name in names}
    full = {name: [] for name in names}
    head = {name: [heading(name, args.device), "",
                   "| sample | suite | cases | failed | causes (count: first replay line) |", "|---|---|---|---|---|"]
            for name in names}
    for label in labels:
        for suite in [s for s in SUITES if not args.suite or s in args.suite]:
            for name in names:
                rows[name].append(judge_row(name, label, suite, out, args, deadline, full[name]))
                print((name,) + tuple(rows[name][-1]), flush=True)
                (out / f"{name}.md").write_text("\n".join(head[name] + [f"| {' | '.join(r)} |" for r in rows[name]]) + "\n")
                (out / f"{name}-failures.txt").write_text("\n".join(full[name]))


def die_with_parent():
    """In a child, before it runs: SIGKILL when the process that started it ends (prctl's
    PR_SET_PDEATHSIG); nothing where the C library has no prctl."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def judge_row(name, label, suite, out, args, deadline, full):
    """One suite in its own child process: its table row (the reason where it gave none)."""
    limit = min(args.suite_seconds, deadline - time.time())
    if limit < 5:
        return [label, suite, "-", "-", "not run: the judge's time ran out"]
    result = out / f".{name}-{label}-{suite}.json".replace("=", "")
    result.unlink(missing_ok=True)
    cmd = [sys.executable, __file__, str(out), "--one", name, label, suite, "--device", args.device] + \
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
    p.add_argument("--step", action="append", choices=list(STEPS),
                   help="judge only this step (repeatable; default: every one whose library is installed)")
    p.add_argument("--suite", action="append", choices=SUITES, help="judge only this suite (repeatable; default: every one)")
    p.add_argument("--suite-seconds", type=float, default=300, help="the most one suite's child may take")
    p.add_argument("--seconds", type=float, default=1e9, help="the whole judge's time; rows past it say so")
    p.add_argument("--one", nargs=3, metavar=("STEP", "SAMPLE", "SUITE"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if a.one:
        name, label, suite = a.one
        judge_one(name, label, suite, a.n, a.device, out / f".{name}-{label}-{suite}.json".replace("=", ""))
        return
    labels = [label for label in RUNS if not a.sample or label in a.sample]
    deadline = time.time() + a.seconds
    # This process never touches the GPU: each child makes its own CUDA context.
    names = a.step or [name for name in STEPS if PEERS[name.split(".")[0]][1].version()]
    for name in sorted({name.split(".")[0] for name in names}):
        print(PEERS[name][0], PEERS[name][1].version() or "not installed", flush=True)
    judge(names, out, a, labels, deadline)


if __name__ == "__main__":
    main()
