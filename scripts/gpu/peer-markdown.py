#!/usr/bin/env python3
"""The side-by-side table of one bench run beside a peer's RECORDED times, as markdown.

usage: scripts/gpu/peer-markdown.py OUT_DIR > table.md
OUT_DIR holds replayssm_bench.csv and peer_comparison.csv from one `replayssm_bench
--peer-table ...` run (scripts/gpu/bench-device.sh). Every row of the run is listed; the peer
column is the figure recorded in another run (../shared/peer), never measured in this one, and
is labelled so. The closing lines count the rows where this run is slower than the record."""
import csv
import math
import os
import sys


def label(k):
    H, HV, state, L, B, kind = k
    return f"{H}/{HV} {state} L={L} B={B} {kind}"


def main(out_dir):
    ours = list(csv.DictReader(open(f"{out_dir}/replayssm_bench.csv")))
    key = lambda r: (r["H"], r["HV"], r["state"], r["L"], r["B"], r["kind"])
    # A run without --peer-table (a GDN sweep: the record holds KDA rows only) has no peer file.
    peer_file = f"{out_dir}/peer_comparison.csv"
    peer = {key(r): r for r in csv.DictReader(open(peer_file))} if os.path.exists(peer_file) else {}
    copy = float(ours[0]["copy_gbps"])
    print(f"Copy bandwidth of this run: {copy:,.0f} GB/s (read + written). Times: CUDA-event medians, "
          "graph for B <= 64, eager above. The peer column is SGLang's Triton kernel as RECORDED in "
          "../shared/peer/triton-replayssm-h200.md (another run), not measured in this one.\n")
    print("| op | H/HV | state | L | B | kind | ours (us) | ours % copy | peer Triton, RECORDED (us) | recorded / ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for r in ours:
        op = r.get("op", "kda_replayssm")
        p = peer.get(key(r)) if op == "kda_replayssm" else None  # the record holds KDA rows only
        cells = [op, f"{r['H']}/{r['HV']}", r["state"], r["L"], r["B"], r["kind"], f"{float(r['time_us']):.1f}",
                 f"{100 * float(r['frac_of_copy']):.1f}%", "-", "-"]
        if p:
            ratio = float(p["peer_over_ours"])
            ratios.append((ratio, key(r)))
            cells[-2:] = [f"{float(p['peer_recorded_us']):.1f}", f"{ratio:.2f}x"]
        print("| " + " | ".join(cells) + " |")
    if ratios:
        gm = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
        worst = min(ratios)
        slower = [k for x, k in ratios if x < 1]
        print(f"\n{len(ratios)} rows with a recorded peer figure: geometric mean recorded/ours {gm:.3f}x, "
              f"lowest {worst[0]:.3f}x at {label(worst[1])}; "
              f"slower than the record in {len(slower)} row(s){': ' + ', '.join(map(label, slower)) if slower else ''}.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
