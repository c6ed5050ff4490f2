#!/usr/bin/env bash
# On the GPU machine, over a carried build: the plain packed decode's kernel (check --op
# kda_packed_decode on cuda and through its plugin, its golden cases, the backend fuzz target,
# its bench rows beside ReplaySSM's L = 1 decode) and ReplaySSM's backend suites, which run on
# the same L = 1 path. That the plain flag leaves ReplaySSM's machine code as it was is checked
# without a GPU: scripts/kernel_code_unchanged.sh.
# usage: scripts/gpu/packed-device.sh [BUILD]      summary in $OUT/summary.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build}"
OUT="${OUT:-/tmp/packed-device}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
H="$BUILD/tools/kda-harness"
nvidia-smi -L | tee -a "$summary"
run() {  # name, command...
  local name=$1 start=$(date +%s)
  shift
  "$@" >"$OUT/$name.txt" 2>&1
  echo "$name: rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
  tail -14 "$OUT/$name.txt" >>"$summary"
}
run check-packed-cuda "$H" check --op kda_packed_decode --backend cuda --no-progress --json "$OUT/check-packed-cuda.json"
run check-packed-plugin "$H" check --op kda_packed_decode --no-progress \
  --backend "plugin:$PWD/$BUILD/plugins/libkda_cuda_kernel_kda_packed_decode.so"
run check-replayssm-cuda "$H" check --backend cuda --suites kernel,kernel-truth,golden-kernel,envelope --no-progress
run golden-packed-cuda "$H" golden verify --op kda_packed_decode --backend cuda
run fuzz-packed env KDA_FUZZ_OP=kda_packed_decode "$BUILD/fuzz/kernel_fuzzer" -runs="${KDA_FUZZ_RUNS:-400}" -seed=17
run bench-l1 "$BUILD/bench/replayssm_bench" --L 1 --heads 32x32,2x4 --batch 1,64,256 --state f32,bf16 \
  --out-dir "$OUT"
cat "$summary"
