#!/usr/bin/env bash
# One device call for a kernel version: correctness first, then speed, within a
# short device budget. Build here: cmake --build build-perf --target kernel_tests replayssm_bench
# then run(command="bash scripts/gpu/perf-device.sh build-perf", carry=[the 5 kernel test
# binaries, build-perf/property_tests/CTestTestfile.cmake, build-perf/bench/replayssm_bench]).
#   1. the GPU suite through ctest at reduced counts   -> $OUT/suite/{summary.txt,ctest.log}
#   2. the benchmark subset that the targets name       -> $OUT/bench*/replayssm_bench.{csv,json}, bench*.log
#      (H=HV=32: B 1/256/1024 x L 1/8/64; B=256 L 4/16 for the saving; H=2/HV=16 B=256 L=8)
#   3. SASS instruction mix of the kernels              -> $OUT/sass-mix.txt
#   4. compute-sanitizer memcheck/racecheck/initcheck   -> $OUT/san/{summary.txt,sanitizers.log}
# Knobs: PERF_VARIANTS=dir (every replayssm_bench.* binary there gets a short A/B subset ->
# $OUT/variant-*/), PERF_PROFILE=1 (scripts/gpu/perf-profile.sh -> $OUT/profile/), PERF_SKIP_SAN=1,
# PERF_FALLBACK=dir (a build dir holding property_tests/kernel_*_test of a previous kernel: if
# the suite fails, that kernel's tests and the sanitizers run instead, and no benchmark).
# Each part has its own time limit (PERF_SUITE_S, PERF_BENCH_S, PERF_SAN_S) so later parts run.
set -u
build=${1:-build-perf}
out=${OUT:-$PWD/perf-out}
here="$(cd "$(dirname "$0")" && pwd)"
bench="$build/bench/replayssm_bench"
mkdir -p "$out"
export KDA_GPU_ROLLOUTS=${KDA_GPU_ROLLOUTS:-400} KDA_GPU_TRUTH_ROLLOUTS=${KDA_GPU_TRUTH_ROLLOUTS:-100}
export KDA_GPU_ADVERSARIAL_ROLLOUTS=${KDA_GPU_ADVERSARIAL_ROLLOUTS:-80}
t0=$(date +%s)
OUT="$out/suite" KDA_SKIP_SANITIZERS=1 timeout "${PERF_SUITE_S:-150}" bash "$here/device-suite.sh" "$build" >/dev/null 2>&1
echo "suite: exit $? after $(($(date +%s) - t0)) s" | tee "$out/timeline.txt"
if [[ -n "${PERF_FALLBACK:-}" ]] && ! grep -q "100% tests passed" "$out/suite/summary.txt"; then
  echo "suite failed: checking the fallback kernel in $PERF_FALLBACK" | tee -a "$out/timeline.txt"
  mkdir -p "$out/fallback"
  for t in "$PERF_FALLBACK"/property_tests/kernel_*_test; do
    timeout 60 "$t" >"$out/fallback/$(basename "$t").log" 2>&1
    echo "fallback $(basename "$t"): exit $?" | tee -a "$out/timeline.txt"
  done
  build=$PERF_FALLBACK
  PERF_SKIP_BENCH=1
fi

run_bench() {  # name, args...
  [[ "${PERF_SKIP_BENCH:-0}" == 1 ]] && return
  local name=$1
  shift
  mkdir -p "$out/$name"
  timeout "${PERF_BENCH_S:-60}" "$bench" --out-dir "$out/$name" --target-seconds 0.1 "$@" >"$out/$name/bench.log" 2>&1
  echo "$name: exit $? after $(($(date +%s) - t0)) s" | tee -a "$out/timeline.txt"
}
run_bench bench-main --heads 32x32 --batch 1,256,1024 --L 1,8,64 --state f32,bf16
run_bench bench-saving --heads 32x32 --batch 256 --L 4,16 --state f32,bf16 --modes cycle
run_bench bench-gqa --heads 2x16 --batch 256 --L 8 --state f32,bf16

if [[ -n "${PERF_VARIANTS:-}" ]]; then
  for v in "$PERF_VARIANTS"/replayssm_bench.*; do
    name="variant-${v##*.}"
    mkdir -p "$out/$name"
    timeout 40 "$v" --out-dir "$out/$name" --target-seconds 0.1 --heads 32x32 --batch 1,256 --L 1,8,64 \
      --state f32,bf16 --modes append,flush >"$out/$name/bench.log" 2>&1
    echo "$name: exit $? after $(($(date +%s) - t0)) s" | tee -a "$out/timeline.txt"
  done
fi
if [[ "${PERF_PROFILE:-0}" == 1 ]]; then
  OUT="$out/profile" timeout 150 bash "$here/perf-profile.sh" "$bench" >"$out/profile.log" 2>&1
  echo "profile: exit $? after $(($(date +%s) - t0)) s" | tee -a "$out/timeline.txt"
fi

if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$bench" >/tmp/all.sass 2>&1
  for k in ILi4ELi0E ILi4ELi1E; do  # f32 and bf16 state, K = 128
    echo "== replayssm_*kernel$k (v7 and the short-ring kernel together)"
    awk -v k="$k" '/Function : /{on = $0 ~ ("replayssm_[a-z_]*kernel" k)} on' /tmp/all.sass |
      grep -E '^ +/\*[0-9a-f]{4,6}\*/' | sed -E 's#^ +/\*[0-9a-f]+\*/ +##; s#^@!?U?P[0-9T] +##' |
      awk '{print $1}' | grep -E 'LDG|STG|LDGSTS|HMMA|LDL|STL|MUFU|BAR' | sort | uniq -c | sort -rn
  done >"$out/sass-mix.txt"
fi

if [[ "${PERF_SKIP_SAN:-0}" != 1 ]]; then
  KDA_SANITIZER_ROLLOUTS=${KDA_SANITIZER_ROLLOUTS:-6} OUT="$out/san" KDA_SKIP_CTEST=1 \
    timeout "${PERF_SAN_S:-150}" bash "$here/device-suite.sh" "$build" >/dev/null 2>&1
  echo "sanitizers: exit $? after $(($(date +%s) - t0)) s" | tee -a "$out/timeline.txt"
fi
cat "$out/suite/summary.txt" "$out/san/summary.txt" 2>/dev/null
grep -hE "^H|copy bandwidth|worst" "$out"/bench-*/bench.log "$out"/variant-*/bench.log 2>/dev/null | tail -90
