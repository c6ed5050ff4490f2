#!/usr/bin/env bash
# Builds a replayssm_bench binary whose kernels come from another source tree or with extra
# compile flags, for an A/B in one device run (the same bench, the same run, two kernels):
#   scripts/gpu/bench-variant.sh NAME [KERNEL_SRC_ROOT] [NVCC_FLAGS...]
# KERNEL_SRC_ROOT holds kernels/*.cu and *.cuh (default: this tree), e.g. an old commit's
# files from `git archive REV kernels | tar -x -C /tmp/old`. The bench objects and the rest
# of the kernel library come from the build dir ($BUILD, default build), which must have
# built replayssm_bench. Output: build-bench-carry/replayssm_bench.NAME (ignored path).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
name=$1
src=${2:-$root}
shift $(($# >= 2 ? 2 : 1))
build=${BUILD:-build}
cd "$root/$build"
work="$root/$build/bench-variant-$name"
mkdir -p "$work" "$root/build-bench-carry"
objs=()
for cu_path in "$src"/kernels/*.cu; do  # every kernel file of that tree (the set changed over versions)
  cu=$(basename "$cu_path" .cu)
  # -I$src first: the variant's kernels/*.cuh shadow this tree's.
  /usr/local/cuda/bin/nvcc -I"$src" -I"$root" -isystem=/usr/local/cuda/include -O3 -DNDEBUG \
    --generate-code=arch=compute_90a,code=[sm_90a] --generate-code=arch=compute_90,code=[compute_90] \
    -std=c++17 -Xptxas -v "$@" -x cu -c "$src/kernels/$cu.cu" -o "$work/$cu.o" 2>"$work/$cu.ptxas.txt"
  objs+=("$work/$cu.o")
done
rm -f "$work/libkernels.a"
ar qc "$work/libkernels.a" "${objs[@]}" kernels/CMakeFiles/kda_kernels.dir/replayssm_launch.cpp.o \
  kernels/CMakeFiles/kda_kernels_device.dir/device_tensor.cpp.o
# The engine library holds the operator table and the operators' launchers (operators/*/cuda_launch.cpp).
c++ -O3 -DNDEBUG -static-libstdc++ -static-libgcc bench/CMakeFiles/replayssm_bench.dir/*.o -o \
  "$root/build-bench-carry/replayssm_bench.$name" -L/usr/local/cuda/targets/x86_64-linux/lib bench/libkda_bench_model.a \
  engine/libkda_engine.a engine/libkda_plugin_support.a reference/libkda_reference.a cases/libkda_cases.a \
  "$work/libkernels.a" contract/libkda_contract.a /usr/local/cuda/lib/libcudart_static.a -ldl \
  /usr/lib/x86_64-linux-gnu/librt.a -lcudadevrt -lcudart_static -lrt -lpthread -ldl
grep -hE "registers|spill" "$work"/replayssm_short_ring_kernel.ptxas.txt | paste - - | sort | uniq -c | head -5
echo "built build-bench-carry/replayssm_bench.$name"
