"""Judges flash-linear-attention's recurrent decode kernels (fla-core, installed with pip) on the
GPU through kda_harness.check, as a user would: every suite of each operator, over the general
sample space and restricted to K = V = 128, and on a model's production heads where the operator
takes them. Writes a markdown table (suite, cases, failures, causes with a replay line each) and
every failure in full.

usage: python fla_judge.py OUT_DIR [--n N] [--device cuda|cpu] [--k128-only | --general-only] [--op OP ...]
On the CPU, fla's Triton kernels run in Triton's interpreter (TRITON_INTERPRET=1, set here for
--device cpu): slowly, float32 throughout (no TF32), but the same indexing and masking.
"""
import argparse
import os
import json
import sys
import time
from pathlib import Path

import kda_harness
from kda_harness.envelope import Envelope
from kda_harness.peers import fla

STEPS = [fla.kda_step, fla.gdn_step]  # each judged as its operator (step.kda_op)
RUNS = [  # (label, check() arguments beyond the step)
    ("general", {}),
    ("K=V=128", {"restrict": Envelope(k=(128, 128), v=(128, 128))}),
]


def judge(step, out, n, device, runs):
    rows, full = [], []
    for label, extra in runs:
        for suite in kda_harness.suites():
            if suite in ("golden", "golden-kernel"):
                continue
            start = time.time()
            try:
                report = kda_harness.check(step, device=device, framework="torch", suites=suite, n=n, isolate=True, case_timeout=120,
                                           **extra)
            except Exception as e:  # a suite the operator has no cases for, or a harness error
                rows.append((label, suite, "-", "-", f"not run: {type(e).__name__}: {e}"))
                continue
            causes = "; ".join(f"{len(cases)}x {cause or 'failed'}: `{cases[0].config}`"
                               for _, cause, cases in report.failure_groups())
            skipped = sum(c.skipped for c in report.cases)
            rows.append((label, suite, str(len(report.cases)) + (f" ({skipped} skipped)" if skipped else ""),
                         str(len(report.failures)), causes or "-"))
            full.append(f"## {step.kda_op} {label} {suite} ({time.time() - start:.0f} s)\n\n{report}\n")
            print(rows[-1], flush=True)
    table = [f"### {step.kda_op}: fla-core {fla.version()} `{step.__name__}` on {device}" +
             (" (Triton's interpreter)" if device == "cpu" else ""), "",
             "| sample | suite | cases | failed | causes (count: first replay line) |", "|---|---|---|---|---|"]
    table += [f"| {' | '.join(r)} |" for r in rows]
    (out / f"{step.kda_op}.md").write_text("\n".join(table) + "\n")
    (out / f"{step.kda_op}-failures.txt").write_text("\n".join(full))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--n", type=int, default=None, help="cases per suite (default: the harness's)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--k128-only", action="store_true", help="only the K = V = 128 sample")
    p.add_argument("--general-only", action="store_true",
                   help="only the general sample (the interpreter's pace: K = V = 128 at production batches outlasts case_timeout)")
    p.add_argument("--op", action="append", choices=[s.kda_op for s in STEPS],
                   help="judge only this operator's step (repeatable; default: every one)")
    a = p.parse_args()
    if a.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = RUNS[1:] if a.k128_only else RUNS[:1] if a.general_only else RUNS
    # Each case runs in a forked child (isolate=True), so that a kernel that faults costs its case;
    # a CUDA context made here could not be used there: this process never touches the GPU.
    print("fla-core", fla.version(), flush=True)
    for step in STEPS:
        if not a.op or step.kda_op in a.op:
            judge(step, out, a.n, a.device, runs)


if __name__ == "__main__":
    main()
