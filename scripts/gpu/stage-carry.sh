#!/usr/bin/env bash
# Stages what the GPU machine needs from a build into one compressed file under build-carry/
# (the device tool carries at most 64 MiB and 8 paths; stripped binaries and CTest files
# compress to a few MB): the CLI, the CUDA plugins, the kernel tests, the fuzz targets and the
# benchmark, the C library and the fetched wheels, with the CTest files rewritten to the staged tree build-gpu/.
# usage: scripts/gpu/stage-carry.sh [BUILD]     then carry build-carry and, on the device,
#        tar xJf build-carry/gpu.tar.xz && ctest --test-dir build-gpu -L gpu ...
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build-dev}"
# What to stage, relative to the tree (the patterns expand there).
mapfile -t staged < <(cd "$BUILD" && for f in tools/kda-harness fuzz/kernel_fuzzer bench/replayssm_bench plugins/*.so \
                        property_tests/kernel_*_test capi/libkda_harness_capi.so; do
                        if [ -f "$f" ]; then echo "$f"; fi
                      done)
[ "${#staged[@]}" -gt 0 ] || { echo "stage-carry: $BUILD holds none of the binaries to stage" >&2; exit 1; }
# The binaries of the checkout as it is, never older ones left in the tree.
bash scripts/gpu/build-staged.sh "$BUILD" "${staged[@]}" || { echo "stage-carry: nothing staged" >&2; exit 1; }
rm -rf build-gpu build-carry
mkdir -p build-gpu build-carry
(
  cd "$BUILD"
  for f in "${staged[@]}"; do
    mkdir -p "../build-gpu/$(dirname "$f")"
    strip -o "../build-gpu/$f" "$f"
  done
  [ -d wheels ] && cp -r wheels ../build-gpu/  # python/device-tests.sh --fetch-wheels
  find . -name CTestTestfile.cmake -not -path "*/CMakeFiles/*" | while read -r f; do
    mkdir -p "../build-gpu/$(dirname "$f")"
    sed "s#$PWD#$(dirname "$PWD")/build-gpu#g" "$f" >"../build-gpu/$f"
  done
)
# The staged CTest files must load without the build tree (a test list discovered from a binary
# at test time, gtest_discover_tests, would not): list them here, where the failure is cheap.
ctest --test-dir build-gpu -N >/dev/null 2>build-carry/ctest-list.err || {
  cat build-carry/ctest-list.err >&2
  echo "stage-carry: the staged CTest files do not load (above)" >&2
  exit 1
}
# xz -9: its 64 MiB dictionary folds the near-identical plugin libraries (the CUDA plugin and
# its planted-bug copies) into one another: 14 MB instead of 50 MB at the default level, well
# under the device tool's 64 MiB carry limit with the working tree beside it.
tar cf - build-gpu | xz -9 -T2 >build-carry/gpu.tar.xz
du -h build-carry/gpu.tar.xz
