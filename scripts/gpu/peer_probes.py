"""Probes of what a peer's kernel does in one mode of its call, each a kda_harness.check with the
step's pin narrowed further (and, for a probe of a mode the step's envelope leaves out, that
envelope widened): the runs that tell a finding of peer_judge.py apart from the modes around it.
Each probe runs in its own child process under its own time limit (ending with this process, as
peer_judge.py's children do); one line per probe (cases,
failures, the first failure's cause and replay line) into OUT_DIR/probes.txt, each report in
full into OUT_DIR/probes-full.txt.

usage: python peer_probes.py OUT_DIR [--seconds S] [--only NAME ...]
"""
import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import kda_harness
from kda_harness.peers import flashinfer, sglang_cutedsl
from peer_judge import die_with_parent

# name: (step, extra pin keys, suites, cases, envelope changes (None: the step's), check() arguments)
PROBES = {
    # SGLang's kernel with the caller's L2 norm on: everything but use_qk_l2norm_in_kernel=False.
    "sglang-l2": (sglang_cutedsl.kda_step, "l2=1", "kernel,kernel-truth", 8, None, {}),
    # ... off: the caller asks for none.
    "sglang-no-l2": (sglang_cutedsl.kda_step, "l2=0", "kernel", 4, None, {}),
    # ... with float32 activations, which the kernel is not compiled for and does not refuse.
    "sglang-f32-act": (sglang_cutedsl.kda_step, "l2=1 act=f32", "kernel", 3, {"act_dtypes": ("float32",)}, {}),
    # ... with adversarial values, whose query scale is not K^-0.5.
    "sglang-l2-scale": (sglang_cutedsl.kda_step, "l2=1 values=adv", "kernel-truth", 4, None, {}),
    # FlashInfer's float32-state kernel (padding skipped), int32 indices.
    "flashinfer-f32": (flashinfer.gdn_step, "state=f32 idx=i32", "kernel,kernel-truth", 5, None, {}),
    # ... its bfloat16-state kernel without padding (which it redirects to slot 0), int32 indices.
    "flashinfer-bf16": (flashinfer.gdn_step, "state=bf16 idx=i32 pad=0", "kernel,kernel-truth", 5, None, {}),
    # ... bfloat16 state with int64 indices, which its assert accepts.
    "flashinfer-bf16-i64": (flashinfer.gdn_step, "state=bf16 idx=i64 pad=0", "kernel", 2, None, {}),
    # ... bfloat16 state with padding.
    "flashinfer-bf16-pad": (flashinfer.gdn_step, "state=bf16 idx=i32 pad=0.25", "kernel", 4, None, {}),
    # SGLang's kernel, L2 norm on, at Kimi-Linear's heads and batches.
    "sglang-l2-model": (sglang_cutedsl.kda_step, "l2=1", "kernel", 6, None, {"model": "kimi-linear-48b"}),
    # FlashInfer's float32-state kernel at Qwen3-Next's heads and batches.
    "flashinfer-f32-model": (flashinfer.gdn_step, "state=f32 idx=i32", "kernel", 4, None, {"model": "qwen3-next-80b"}),
}


def probe_one(name, out):
    step, pin, suites, n, widen, extra = PROBES[name]
    envelope = dataclasses.replace(step.kda_envelope, **widen) if widen else None
    start = time.time()
    report = kda_harness.check(step, device="cuda", framework="torch", suites=suites, n=n, pin=f"{step.kda_pin} {pin}",
                               envelope=envelope, **extra)
    groups = report.failure_groups()
    first = f"{len(groups[0][2])}x {groups[0][1] or 'failed'}: `{groups[0][2][0].config}`" if groups else "-"
    line = f"{name} [{pin}; {suites}]: {len(report.cases)} cases, {len(report.failures)} failed; {first}"
    out.write_text(json.dumps({"line": line, "full": f"## {name} ({time.time() - start:.0f} s)\n\n{report}\n"}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--seconds", type=float, default=90, help="each probe's time limit")
    p.add_argument("--only", action="append", choices=list(PROBES))
    p.add_argument("--one", help=argparse.SUPPRESS)
    a = p.parse_args()
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if a.one:
        probe_one(a.one, out / f".{a.one}.json")
        return
    for name in a.only or PROBES:
        result = out / f".{name}.json"
        result.unlink(missing_ok=True)
        try:
            proc = subprocess.run([sys.executable, __file__, str(out), "--one", name], capture_output=True, text=True,
                                  timeout=a.seconds, preexec_fn=die_with_parent)
            if result.exists():
                data = json.loads(result.read_text())
                line, full = data["line"], data["full"]
            else:
                line = full = f"{name}: the child ended with status {proc.returncode}: " + proc.stderr.strip()[-400:]
        except subprocess.TimeoutExpired:
            line = full = f"{name}: not finished in {a.seconds:.0f} s (killed)"
        print(line, flush=True)
        with open(out / "probes.txt", "a") as f:
            f.write(line + "\n")
        with open(out / "probes-full.txt", "a") as f:
            f.write(full + "\n")


if __name__ == "__main__":
    main()
