#!/usr/bin/env bash
# The checks a kernel must pass before it ships, and its full benchmark, in one
# device call (each part under its own time limit so that later parts still run):
#   1. scripts/gpu/device-suite.sh at full counts, with compute-sanitizer memcheck, racecheck
#      and initcheck                                   -> $OUT/suite/
#   2. kda-harness check --backend cuda (kernel, kernel-truth, golden-kernel suites)
#                                                      -> check.log, check.json
#   3. the full benchmark sweep of every build-bench-carry/replayssm_bench* (the first is the
#      kernel checked above; others are other kernels' builds for a same-run comparison), with the
#      peer's recorded times beside it                 -> bench-<binary>/
# Everything ends up in $OUT/ship.tar.gz.
# usage: scripts/gpu/ship-device.sh [build-dir]   (carry: build-bench-carry, the five kernel
#   test binaries and their CTestTestfile.cmake, BUILD/tools/kda-harness)
# Knobs: SHIP_SUITE_S (240), SHIP_CHECK_S (90), SHIP_BENCH_S (110 per binary), BENCH_ARGS.
set -u
build=${1:-build}
root="$(cd "$(dirname "$0")/../.." && pwd)"
out=${OUT:-$PWD/ship-out}
work=/tmp/ship-work
rm -rf "$work" && mkdir -p "$work"
t0=$(date +%s)
mark() { echo "$1: exit $2 after $(($(date +%s) - t0)) s" | tee -a "$work/timeline.txt"; }
OUT="$work/suite" timeout "${SHIP_SUITE_S:-240}" bash "$root/scripts/gpu/device-suite.sh" "$build" >/dev/null 2>&1
mark suite $?
timeout "${SHIP_CHECK_S:-90}" "$build/tools/kda-harness" check --backend cuda --no-progress --json "$work/check.json" \
  >"$work/check.log" 2>&1
mark check $?
for b in "$root"/build-bench-carry/replayssm_bench*; do
  name=$(basename "$b")
  mkdir -p "$work/bench-$name"
  # shellcheck disable=SC2086
  timeout "${SHIP_BENCH_S:-110}" "$b" --out-dir "$work/bench-$name" --peer-table "$root/build-bench-carry/peer-table.md" \
    ${BENCH_ARGS:---target-seconds 0.1} >"$work/bench-$name/bench.log" 2>&1
  mark "bench $name" $?
done
mkdir -p "$out"
tar -czf "$out/ship.tar.gz" -C "$work" .
cat "$work/timeline.txt"
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|hazard|clean|exit" "$work/suite/summary.txt" | head -30
tail -25 "$work/check.log"
grep -E "copy bandwidth|worst|rows:" "$work"/bench-*/bench.log
