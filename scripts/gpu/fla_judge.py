"""Judges flash-linear-attention's recurrent decode kernels (fla-core, installed with pip) on the
GPU through kda_harness.check, as a user would: every suite of each operator, over the general
sample space and restricted to K = V = 128, and on a model's production heads where the operator
takes them. Writes a markdown table (suite, cases, failures, causes with a replay line each) and
every failure in full.

usage: python fla_judge.py OUT_DIR [N]      (N cases per suite; default the harness's)
"""
import json
import sys
import time
from pathlib import Path

import kda_harness
from kda_harness.envelope import Envelope
from kda_harness.peers import fla

RUNS = [  # (label, check() arguments beyond the step)
    ("general", {}),
    ("K=V=128", {"restrict": Envelope(k=(128, 128), v=(128, 128))}),
]


def judge(step, out, n):
    rows, full = [], []
    for label, extra in RUNS:
        for suite in kda_harness.suites():
            if suite in ("golden", "golden-kernel"):
                continue
            start = time.time()
            try:
                report = kda_harness.check(step, device="cuda", suites=suite, n=n, isolate=True, case_timeout=120,
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
    table = [f"### {step.kda_op}: fla-core {fla.version()} `{step.__name__}`", "",
             "| sample | suite | cases | failed | causes (count: first replay line) |", "|---|---|---|---|---|"]
    table += [f"| {' | '.join(r)} |" for r in rows]
    (out / f"{step.kda_op}.md").write_text("\n".join(table) + "\n")
    (out / f"{step.kda_op}-failures.txt").write_text("\n".join(full))


def main(out_dir, n=None):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # Each case runs in a forked child (isolate=True), so that a kernel that faults costs its case;
    # a CUDA context made here could not be used there: this process never touches the GPU.
    print("fla-core", fla.version(), flush=True)
    for step in (fla.kda_step, fla.gdn_step):
        if step.kda_op not in kda_harness.operators():
            print(f"{step.kda_op}: not in this harness's table, skipped", flush=True)
            continue
        judge(step, out, int(n) if n else None)


if __name__ == "__main__":
    main(*sys.argv[1:3])
