"""flash-linear-attention's recurrent KDA decode at T = 1 timed beside our kernel's plain packed
decode, in the same device run: for each kda_packed_decode row of a replayssm_bench.csv written
earlier in the run (same machine, same session), fla's fused_recurrent_kda_fwd is called at the
same shape with the same bytes (bfloat16 q, k, v, raw gate and beta logits, A_log and dt_bias;
the pool in SGLang's V-first layout; bfloat16 out), its gate and beta sigmoid in the kernel as
the packed decode computes them, and timed as the bench times ours: CUDA graphs, one per input
set, rotated over sets so that the inputs come from memory, each replay between its own pair of
CUDA events, the median of many. The bytes per step are the bench's model (its CSV row).

usage: python fla_bench.py BENCH_CSV OUT_MD
"""
import csv
import statistics
import sys

import torch

from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def inputs(B, H, HV, K, V, state, dev):
    act = torch.bfloat16
    return dict(
        q=torch.randn(B, 1, H, K, device=dev, dtype=act), k=torch.randn(B, 1, H, K, device=dev, dtype=act),
        v=torch.randn(B, 1, HV, V, device=dev, dtype=act), g=torch.randn(B, 1, HV, K, device=dev, dtype=act),
        beta=torch.randn(B, 1, HV, device=dev, dtype=act), A_log=torch.randn(HV, device=dev, dtype=act),
        dt_bias=torch.randn(HV * K, device=dev, dtype=act),
        initial_state=torch.randn(B, HV, V, K, device=dev).to(DTYPES[state]),
        ssm_state_indices=torch.randperm(B, device=dev, dtype=torch.int32),
        out=torch.empty(B, 1, HV, V, device=dev, dtype=act))


def call(t):
    fused_recurrent_kda_fwd(**t, scale=t["q"].shape[-1] ** -0.5, inplace_final_state=True, state_v_first=True,
                            use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True)


def time_graphs(sets, samples=400, warmup=20):
    stream = torch.cuda.Stream()
    graphs = []
    with torch.cuda.stream(stream):
        for t in sets:  # compile and warm each set outside capture
            call(t)
        stream.synchronize()
        for t in sets:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=stream):
                call(t)
            graphs.append(g)
    times = []
    with torch.cuda.stream(stream):
        for i in range(warmup + samples):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(stream)
            graphs[i % len(graphs)].replay()
            e.record(stream)
            if i >= warmup:
                times.append((s, e))
        stream.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in times)


def main(csv_path, out_path):
    import importlib.metadata as md
    dev = "cuda"
    rows = [r for r in csv.DictReader(open(csv_path)) if r["op"] == "kda_packed_decode"]
    lines = [f"# fla-core {md.version('fla-core')} fused_recurrent_kda_fwd (T = 1) beside our kda_packed_decode, "
             f"one run on {torch.cuda.get_device_name()}", "",
             "Both as CUDA graph replays rotated over input sets, each between its own CUDA events (median); "
             "bytes per step from the bench's model (same shapes, bfloat16 activations and out).", "",
             "| H/HV | B | state | MB/step | ours us | fla us | fla / ours | ours %copy | fla %copy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        H, HV, K, V, B = (int(r[k]) for k in ("H", "HV", "K", "V", "B"))
        if not r["graph_median_us"]:
            continue
        ours = float(r["graph_median_us"])
        nbytes = float(r["read_bytes"]) + float(r["write_bytes"])
        copy = float(r["copy_gbps"]) if r["copy_gbps"] else 0.0
        sets = [inputs(B, H, HV, K, V, r["state"], dev) for _ in range(max(1, int(r["sets"])))]
        fla = time_graphs(sets)
        pct = lambda us: f"{100 * nbytes / (us * 1e3) / copy:.1f}%" if copy else "-"
        lines.append(f"| {H}/{HV} | {B} | {r['state']} | {nbytes / 1e6:.2f} | {ours:.2f} | {fla:.2f} | "
                     f"{fla / ours:.2f} | {pct(ours)} | {pct(fla)} |")
        print(lines[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    open(out_path, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
