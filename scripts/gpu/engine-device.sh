#!/usr/bin/env bash
# On the GPU machine, over a carried build (scripts/gpu/README.md): the GPU tests through
# ctest with a resource spec of every GPU (each test process logs the GPU it ran on), our
# kernel judged through the plugin path (`check --backend plugin:...`), the backend fuzz
# target through the same plugin, and the Python package's tests with torch.
# usage: scripts/gpu/engine-device.sh [BUILD]      summary in $OUT/summary.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build-dev}"
OUT="${OUT:-/tmp/engine-device}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
plugin="$PWD/$BUILD/plugins/libkda_cuda_kernel_kda_replayssm.so"
nvidia-smi -L | tee -a "$summary"

scripts/gpu/resource-spec.sh "$OUT/gpus.json"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
start=$(date +%s)
ctest --test-dir "$BUILD" -L gpu -E '^plugins\.' --resource-spec-file "$OUT/gpus.json" -j "$gpus" -V \
  >"$OUT/ctest-gpu.txt" 2>&1
echo "ctest -L gpu (resource spec, $gpus GPU(s)): rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
grep -E "GPU test process on device|tests passed|Test +#" "$OUT/ctest-gpu.txt" | grep -vE "^[0-9]+: Test command" \
  >>"$summary"

start=$(date +%s)
"$BUILD/tools/kda-harness" check --backend "plugin:$plugin" --no-progress --json "$OUT/check-plugin.json" \
  >"$OUT/check-plugin.txt" 2>&1
echo "check --backend plugin:cuda kernel: rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
tail -12 "$OUT/check-plugin.txt" >>"$summary"

start=$(date +%s)
KDA_FUZZ_BACKEND="plugin:$plugin" "$BUILD/fuzz/kernel_fuzzer" -runs="${KDA_FUZZ_RUNS:-600}" -seed=61 \
  >"$OUT/fuzz-plugin.txt" 2>&1
echo "kernel_fuzzer on the plugin: rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
tail -3 "$OUT/fuzz-plugin.txt" >>"$summary"

start=$(date +%s)
bash python/device-tests.sh "$BUILD" >"$OUT/python.txt" 2>&1
echo "python device tests: rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
tail -8 "$OUT/python.txt" >>"$summary"
cat "$summary"
