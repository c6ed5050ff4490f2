#!/usr/bin/env bash
# The GDN ReplaySSM check of our kernel on the GPU machine, in one call, from staged binaries
# (scripts/gpu/gdn-stage.sh BUILD: stripped, in build-carry-gdnkernel/gdn.tar.xz), each part
# under its own time limit, the most important first:
#   1. kernel_gdn_test: the GDN step == the KDA step with broadcast gates, bitwise;
#   2. compute-sanitizer memcheck and racecheck on a few GDN rollouts (KDA_GDN_SAN_CASES);
#   3. replayssm_bench at Qwen3-Next's shapes (H=16, HV=32, K=V=128, B 1/32/256, L 1/8/16,
#      f32 state and rings, bf16 activations and out): --op gdn_replayssm, then our KDA step
#      at the same shapes for scale (no peer figure exists for GDN);
#   4. the KDA kernel suites at reduced counts (the kernels' g-record store is shared).
# Logs under $OUT: summary.txt (read first), gdn_test.log, memcheck.log, racecheck.log,
# bench_<op>.log and .csv, <suite>.log.
# Knobs: KDA_GDN_SAN_CASES (2), KDA_GPU_ROLLOUTS (150), GDN_BENCH_ARGS (replayssm_bench options;
# default: a short timing plan), GDN_SKIP_BENCH=1, GDN_SKIP_KDA=1.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
carry=${GDN_CARRY:-$root/build-carry-gdnkernel}
out=${OUT:-$PWD/gdn-out}
mkdir -p "$out" /tmp/gdn
tar xJf "$carry/gdn.tar.xz" -C /tmp/gdn
bin=/tmp/gdn/bin
summary="$out/summary.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >"$summary" 2>&1
timed() {  # timed LIMIT LOG LABEL COMMAND...: runs COMMAND under LIMIT seconds into LOG
  local limit=$1 log=$2 label=$3 t0
  shift 3
  t0=$(date +%s)
  timeout "$limit" "$@" >"$log" 2>&1
  echo "$label: exit $? after $(($(date +%s) - t0)) s" >>"$summary"
}

timed 70 "$out/gdn_test.log" kernel_gdn_test "$bin/kernel_gdn_test"
grep -E "OK \]|FAILED|SKIPPED|cases:|differs|Failure" "$out/gdn_test.log" | head -20 >>"$summary"

for tool in memcheck racecheck; do
  KDA_GDN_CASES=${KDA_GDN_SAN_CASES:-2} timed 35 "$out/$tool.log" "compute-sanitizer $tool" \
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/kernel_gdn_test" \
    --gtest_filter='KernelGdn.GdnStepEqualsKdaStepWithBroadcastGates'
  grep -hE "SUMMARY|cases:" "$out/$tool.log" >>"$summary"
done

if [[ "${GDN_SKIP_BENCH:-0}" != 1 ]]; then
  for op in gdn_replayssm kda_replayssm; do
    # shellcheck disable=SC2086
    timed 40 "$out/bench_$op.log" "bench $op" "$bin/replayssm_bench" --op "$op" --heads 16x32 --batch 1,32,256 \
      --L 1,8,16 --state f32 --ring f32 --out-dir /tmp/gdn \
      ${GDN_BENCH_ARGS:---copy-gib 0.5 --copy-reps 10 --target-seconds 0.05 --min-samples 30}
    cp /tmp/gdn/replayssm_bench.csv "$out/bench_$op.csv" 2>/dev/null
  done
fi

if [[ "${GDN_SKIP_KDA:-0}" != 1 ]]; then
  export KDA_GPU_ROLLOUTS=${KDA_GPU_ROLLOUTS:-150}
  export KDA_GPU_ADVERSARIAL_ROLLOUTS=$((KDA_GPU_ROLLOUTS / 4))
  for t in kernel_vs_reference kernel_adversarial kernel_graph kernel_launcher; do
    timed 60 "$out/$t.log" "${t}_test (KDA_GPU_ROLLOUTS=$KDA_GPU_ROLLOUTS)" "$bin/${t}_test"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/$t.log" >>"$summary"
  done
fi
cat "$summary"
grep -hE "^copy|^gdn |^H16" "$out"/bench_*.log 2>/dev/null
