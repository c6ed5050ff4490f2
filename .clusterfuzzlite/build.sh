#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script: builds the CPU fuzz targets (every one the build
# lists in fuzz/fuzz_targets.txt: contract_fuzzer, reference_fuzzer, cli_input_fuzzer) with the compilers, flags and fuzzing engine those tools choose, and puts
# each target, its dictionary and its seed corpus (corpus + fixed regression inputs) in $OUT.
# It honours the variables the tools set: $CC $CXX $CFLAGS $CXXFLAGS (sanitizer and coverage
# flags, -fsanitize=fuzzer-no-link; applied to every library the targets link, so coverage
# reaches contract/, cases/ and reference/), $LIB_FUZZING_ENGINE (linked into the targets
# only), $OUT, $WORK, $SRC. The sources are this repository: $SRC/kda-harness (the
# Dockerfile's WORKDIR) or the current folder when it is the repository's root.
# The CUDA kernel target is not built here (no GPU on the fleet; see fuzz/README.md).
src="${KDA_SRC:-}"
if [[ -z "$src" ]]; then
  if [[ -f "$PWD/fuzz/CMakeLists.txt" ]]; then src="$PWD"; else src="$SRC/kda-harness"; fi
fi
build="$WORK/kda-harness-build"
generator="Unix Makefiles"
command -v ninja >/dev/null && generator=Ninja

# CMAKE_BUILD_TYPE=None: no optimization or NDEBUG flags of CMake's own; $CFLAGS/$CXXFLAGS
# decide. KDA_FUZZ_INSTRUMENT empty: the sanitizer flags come from $CXXFLAGS, not from the
# `fuzz` preset's defaults.
cmake -S "$src" -B "$build" -G "$generator" \
  -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DKDA_ENABLE_CUDA=OFF -DKDA_BUILD_FUZZERS=ON \
  -DKDA_FUZZ_INSTRUMENT= -DKDA_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$build" --target fuzzers -j "$(nproc)"

while read -r fuzzer; do
  cp "$build/fuzz/$fuzzer" "$OUT/"
  cp "$src/fuzz/dict/$fuzzer.dict" "$OUT/$fuzzer.dict"
  # Seed corpus: <fuzzer>_seed_corpus.zip, flat (open findings, under regressions/*/open/,
  # are left out: they would stop every run until fixed).
  seeds="$WORK/seeds-$fuzzer"
  rm -rf "$seeds" && mkdir -p "$seeds"
  find "$src/fuzz/corpus/$fuzzer" "$src/fuzz/regressions/$fuzzer" -maxdepth 1 -type f ! -name '.*' ! -name '*.md' \
    -exec cp -t "$seeds" {} + 2>/dev/null || true
  rm -f "$OUT/${fuzzer}_seed_corpus.zip"
  (cd "$seeds" && cmake -E tar cf "$OUT/${fuzzer}_seed_corpus.zip" --format=zip -- *)
done <"$build/fuzz/fuzz_targets.txt"
