#!/usr/bin/env bash
# Builds the benchmark here (no GPU needed) and stages what a device run needs into
# build-bench-carry/ (ignored by .gitignore's /build*/): the replayssm_bench binary, the
# kernels' ptxas resource report and, where ../shared/peer/ has it, the peer's recorded table
# (peer-table.md, shown beside the run's times as recorded elsewhere). Then, from the device tool:
#   run(command="scripts/gpu/bench-device.sh", carry=["build-bench-carry"])
# usage: scripts/gpu/bench-stage.sh [build-dir]   (default: build-bench)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build=${1:-build-bench}
cd "$root"
[[ -f "$build/CMakeCache.txt" ]] || cmake --preset default -B "$build" >/dev/null
# The resource report comes from ptxas -v on the kernel's object (kernels/CMakeLists.txt option).
cmake -B "$build" -DKDA_KERNEL_RESOURCE_REPORT=ON >/dev/null
rm -f "$build"/kernels/CMakeFiles/kda_kernels.dir/replayssm_*kernel.cu.o  # re-run ptxas -v here only
cmake --build "$build" --target replayssm_bench bytes_model_test stats_test -j2 2>&1 | tee "$build/bench-build.log" | grep -E "error|warning" || true
stage=build-bench-carry
rm -rf "$stage" && mkdir -p "$stage"
cp "$build/bench/replayssm_bench" "$stage/"
grep -A3 "Compiling entry function.*replayssm_" "$build/bench-build.log" >"$stage/ptxas-resource.txt" || true
peer="$root/../shared/peer/triton-replayssm-h200.md"
[[ -f "$peer" ]] && cp "$peer" "$stage/peer-table.md"
ldd "$stage/replayssm_bench" | tee "$stage/ldd.txt"
if grep -qE "libstdc\+\+|libfmt|libcudart" "$stage/ldd.txt"; then
  echo "bench-stage: the binary needs a shared library the device machine may lack" >&2
  exit 1
fi
cat "$stage/ptxas-resource.txt"
du -sh "$stage"
