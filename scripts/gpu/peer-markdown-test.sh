#!/usr/bin/env bash
# peer-markdown.py on a two-row run: the row the record has gets the recorded time and the ratio
# (labelled RECORDED), the GDN row none, and the closing line counts the row slower than the record.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/replayssm_bench.csv" <<'CSV'
H,HV,K,V,B,L,state,kind,time_us,copy_gbps,frac_of_copy,op
32,32,128,128,256,8,bf16,append,150.0,4200.0,0.5,kda_replayssm
32,32,128,128,256,8,bf16,append,151.0,4200.0,0.49,gdn_replayssm
CSV
cat >"$dir/peer_comparison.csv" <<'CSV'
H,HV,state,L,B,kind,ours_us,peer_recorded_us,peer_over_ours
32,32,bf16,8,256,append,150.0,120.0,0.8000
CSV
out=$(python3 "$here/peer-markdown.py" "$dir")
fail() { echo "FAIL: $1"; echo "$out"; exit 1; }
grep -q "RECORDED" <<<"$out" || fail "the peer column is not labelled RECORDED"
grep -qF "| kda_replayssm | 32/32 | bf16 | 8 | 256 | append | 150.0 | 50.0% | 120.0 | 0.80x |" <<<"$out" || fail "the KDA row"
grep -qF "| gdn_replayssm | 32/32 | bf16 | 8 | 256 | append | 151.0 | 49.0% | - | - |" <<<"$out" || fail "the GDN row"
grep -qF "slower than the record in 1 row(s): 32/32 bf16 L=8 B=256 append." <<<"$out" || fail "the closing count"
echo "peer-markdown: ok"
