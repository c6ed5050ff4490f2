#!/usr/bin/env bash
# The GDN ReplaySSM check of our kernel on the GPU machine, in one call, from staged binaries
# (scripts/gpu/gdn-stage.sh BUILD: stripped, in build-carry-gdnkernel/gdn.tar.xz):
#   1. kernel_gdn_test: the GDN step == the KDA step with broadcast gates, bitwise;
#   2. the KDA kernel suites at reduced counts (the kernels' g-record store changed);
#   3. compute-sanitizer memcheck and racecheck on a few GDN rollouts (KDA_GDN_CASES);
#   4. replayssm_bench --op gdn_replayssm at Qwen3-Next's shapes (H=16, HV=32, K=V=128,
#      f32 state and rings, bf16 activations and out), and the KDA step at the same shapes
#      beside it (ours, for scale; no peer figure exists for GDN).
# Logs under $OUT: summary.txt (read first), gdn_test.log, kda_suites.log, sanitizers.log,
# bench_gdn.log, bench_kda.log, replayssm_bench.csv (both ops, column `op`).
# Knobs: KDA_GPU_ROLLOUTS (KDA suites, default 200), KDA_GDN_SAN_CASES (default 3),
# GDN_BENCH_ARGS (extra replayssm_bench options), GDN_SKIP_KDA=1, GDN_SKIP_BENCH=1.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
carry=${GDN_CARRY:-$root/build-carry-gdnkernel}
out=${OUT:-$PWD/gdn-out}
mkdir -p "$out" /tmp/gdn
tar xJf "$carry/gdn.tar.xz" -C /tmp/gdn
bin=/tmp/gdn/bin
summary="$out/summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader >"$summary" 2>&1

start=$(date +%s)
"$bin/kernel_gdn_test" >"$out/gdn_test.log" 2>&1
echo "kernel_gdn_test: exit $? after $(($(date +%s) - start)) s" >>"$summary"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|cases:|Failure|differs" "$out/gdn_test.log" | head -40 >>"$summary"

if [[ "${GDN_SKIP_KDA:-0}" != 1 ]]; then
  export KDA_GPU_ROLLOUTS=${KDA_GPU_ROLLOUTS:-200}
  export KDA_GPU_ADVERSARIAL_ROLLOUTS=$((KDA_GPU_ROLLOUTS / 4))
  : >"$out/kda_suites.log"
  for t in kernel_vs_reference kernel_adversarial kernel_graph kernel_launcher; do
    start=$(date +%s)
    "$bin/${t}_test" >>"$out/kda_suites.log" 2>&1
    echo "${t}_test (KDA_GPU_ROLLOUTS=$KDA_GPU_ROLLOUTS): exit $? after $(($(date +%s) - start)) s" >>"$summary"
  done
  grep -E "^\[  (PASSED|FAILED) " "$out/kda_suites.log" >>"$summary"
fi

: >"$out/sanitizers.log"
for tool in memcheck racecheck; do
  start=$(date +%s)
  KDA_GDN_CASES=${KDA_GDN_SAN_CASES:-3} compute-sanitizer --tool "$tool" --error-exitcode 99 \
    "$bin/kernel_gdn_test" --gtest_filter='KernelGdn.GdnStepEqualsKdaStepWithBroadcastGates' >>"$out/sanitizers.log" 2>&1
  echo "compute-sanitizer $tool on kernel_gdn_test (${KDA_GDN_SAN_CASES:-3} rollouts): exit $? after $(($(date +%s) - start)) s" >>"$summary"
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) " "$out/sanitizers.log" >>"$summary"

if [[ "${GDN_SKIP_BENCH:-0}" != 1 ]]; then
  shape=(--heads 16x32 --batch 1,32,256 --L 1,8,16 --state f32 --ring f32)
  # shellcheck disable=SC2086
  timeout 240 "$bin/replayssm_bench" --op gdn_replayssm "${shape[@]}" --out-dir /tmp/gdn ${GDN_BENCH_ARGS:-} \
    >"$out/bench_gdn.log" 2>&1
  echo "bench gdn: exit $?" >>"$summary"
  cp /tmp/gdn/replayssm_bench.csv "$out/replayssm_bench.csv" 2>/dev/null
  # shellcheck disable=SC2086
  timeout 240 "$bin/replayssm_bench" --op kda_replayssm "${shape[@]}" --modes append,flush,cycle --out-dir /tmp/gdn \
    ${GDN_BENCH_ARGS:-} >"$out/bench_kda.log" 2>&1
  echo "bench kda (same shapes, ours): exit $?" >>"$summary"
  tail -n +2 /tmp/gdn/replayssm_bench.csv >>"$out/replayssm_bench.csv" 2>/dev/null
  grep -E "^copy|^gdn H|^H16" "$out/bench_gdn.log" "$out/bench_kda.log" | sed 's#^.*/##' >>"$summary"
fi
cat "$summary"
