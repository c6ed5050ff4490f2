#!/usr/bin/env bash
# One device call that checks a candidate kernel and times it against others in the same run
# (a speed difference between two kernels holds only within one run on one machine):
#   1. the GPU suite through ctest (counts from KDA_GPU_*; reduced by default) -> $OUT/suite/
#   2. every build-bench-carry/replayssm_bench* on the same subset, in two interleaved rounds
#      (A B C A B C: the spread between rounds says what a difference must exceed)
#      -> $OUT/ab-<binary>-<round>.log and .csv
#   3. ncu of the first binary (scripts/gpu/perf-profile.sh, PROFILE_CASES) and its SASS
# Everything ends up in $OUT/ab.tar.gz (the device returns few files).
# usage: scripts/gpu/ab-device.sh [build-dir]    knobs: AB_ARGS (bench subset), AB_ROUNDS (2),
#   AB_SKIP_SUITE=1, AB_SKIP_PROFILE=1, PEER_TABLE (default build-bench-carry/peer-table.md)
set -u
build=${1:-build}
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/gpu"
out=${OUT:-$PWD/ab-out}
work=/tmp/ab-work
rm -rf "$work" && mkdir -p "$work"
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$work/device.txt" 2>&1
if [[ "${AB_SKIP_SUITE:-0}" != 1 ]]; then
  export KDA_GPU_ROLLOUTS=${KDA_GPU_ROLLOUTS:-300} KDA_GPU_TRUTH_ROLLOUTS=${KDA_GPU_TRUTH_ROLLOUTS:-60}
  export KDA_GPU_ADVERSARIAL_ROLLOUTS=${KDA_GPU_ADVERSARIAL_ROLLOUTS:-60}
  OUT="$work/suite" KDA_SKIP_SANITIZERS=1 timeout "${AB_SUITE_S:-200}" bash "$here/device-suite.sh" "$build" >/dev/null 2>&1
  echo "suite: exit $? after $(($(date +%s) - t0)) s" | tee -a "$work/timeline.txt"
fi
peer=${PEER_TABLE:-$root/build-bench-carry/peer-table.md}
args=${AB_ARGS:---heads 32x32,2x16 --batch 256,1024 --L 1,4,8,16 --state f32,bf16 --modes append,flush --target-seconds 0.1}
bins=("$root"/build-bench-carry/replayssm_bench*)
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for b in "${bins[@]}"; do
    name=$(basename "$b")
    mkdir -p "$work/$name-$round"
    # shellcheck disable=SC2086
    timeout 120 "$b" --out-dir "$work/$name-$round" --peer-table "$peer" $args >"$work/$name-$round/bench.log" 2>&1
    echo "$name round $round: exit $? after $(($(date +%s) - t0)) s" | tee -a "$work/timeline.txt"
  done
done
if [[ "${AB_SKIP_PROFILE:-0}" != 1 ]]; then
  PROFILE_CASES=${PROFILE_CASES:-32x32:256:8:bf16:append 32x32:256:8:f32:append} OUT="$work/profile" \
    timeout 150 bash "$here/perf-profile.sh" "${bins[0]}" >"$work/profile.log" 2>&1
  echo "profile: exit $? after $(($(date +%s) - t0)) s" | tee -a "$work/timeline.txt"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$work/device.txt" 2>&1
mkdir -p "$out"
tar -czf "$out/ab.tar.gz" -C "$work" .
cat "$work/suite/summary.txt" 2>/dev/null | head -30
for d in "$work"/replayssm_bench*-1; do
  echo "== $(basename "$d")"
  grep -E "copy bandwidth|worst|geometric" "$d/bench.log"
done
