#!/usr/bin/env bash
# The GDN ReplaySSM check of our kernel on the GPU machine, in one call, from staged binaries
# (scripts/gpu/gdn-stage.sh BUILD: stripped, in build-carry-gdnkernel/gdn.tar.xz), each part
# under its own time limit (together under 600 s), the most important first:
#   1. kernel_gdn_test: the linear GDN step == the KDA step with broadcast gates, bitwise;
#   2. kernel_gdn_circular_test: circular rings vs the CPU reference through the engine's
#      driver (profile bounds, row status, footprint, guards), every base of rings of L 1..33;
#   3. compute-sanitizer memcheck and racecheck on a few linear rollouts (KDA_GDN_SAN_CASES)
#      and on the circular rollouts of every kernel path (KernelGdnCircular.EveryKernelPath);
#   4. kda-harness check --op gdn_replayssm --backend cuda: every suite at its default count
#      (the backend suites draw circular rings in 37.5% of the cases), golden set from this tree;
#   5. replayssm_bench at Qwen3-Next's shapes (H=16, HV=32, K=V=128, B 1/32/256, L 1/8/16,
#      f32 state and rings, bf16 activations and out): --op gdn_replayssm (linear rings: compare
#      with earlier runs), then our KDA step at the same shapes for scale;
#   6. (GDN_SKIP_KDA=0) the KDA kernel suites at reduced counts.
# usage: scripts/gpu/gdn-device.sh [STAGED_TREE]   (without it, the binaries of
# build-carry-gdnkernel/gdn.tar.xz; with it, those of stage-carry.sh's build-gpu)
# Logs under $OUT: summary.txt (read first), gdn_test.log, circular_test.log, <tool>.log,
# <tool>_circular.log, check.log and check.json, bench_<op>.log and .csv, <suite>.log.
# Knobs: KDA_GDN_SAN_CASES (2), KDA_GDN_CIRC_CASES (3: cases per ring length, more where a
# base is still unmet), GDN_CHECK_ARGS (extra kda-harness check options), GDN_BENCH_ARGS
# (replayssm_bench options; default: a short timing plan), GDN_SKIP_BENCH=1, GDN_SKIP_CHECK=1,
# GDN_SKIP_KDA=0 (runs the KDA suites; default skipped: their machine code is unchanged by the
# GDN paths, scripts/kernel_code_unchanged.sh, and they would not fit in the same call),
# KDA_GPU_ROLLOUTS (150, for those).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
carry=${GDN_CARRY:-$root/build-carry-gdnkernel}
out=${OUT:-$PWD/gdn-out}
mkdir -p "$out" /tmp/gdn
bin=/tmp/gdn/bin
if [[ -n "${1:-}" ]]; then  # a staged build tree (stage-carry.sh's build-gpu) instead of gdn.tar.xz
  tree="$(realpath "$1")"
  mkdir -p "$bin"
  for f in "$tree"/property_tests/kernel_*_test "$tree/tools/kda-harness" "$tree/bench/replayssm_bench"; do
    ln -sf "$f" "$bin/"
  done
else
  tar xJf "$carry/gdn.tar.xz" -C /tmp/gdn
fi
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

timed 100 "$out/circular_test.log" kernel_gdn_circular_test "$bin/kernel_gdn_circular_test"
grep -E "OK \]|FAILED|SKIPPED|rollouts:|Failure|replay:|bases met" "$out/circular_test.log" | head -20 >>"$summary"

for tool in memcheck racecheck; do
  KDA_GDN_CASES=${KDA_GDN_SAN_CASES:-2} timed 35 "$out/$tool.log" "compute-sanitizer $tool (linear)" \
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/kernel_gdn_test" \
    --gtest_filter='KernelGdn.GdnStepEqualsKdaStepWithBroadcastGates'
  grep -hE "SUMMARY|cases:" "$out/$tool.log" >>"$summary"
  timed 50 "$out/${tool}_circular.log" "compute-sanitizer $tool (circular)" \
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/kernel_gdn_circular_test" \
    --gtest_filter='KernelGdnCircular.EveryKernelPath:KernelGdnCircular.BaseOutsideTheRingRejectsTheRow'
  grep -hE "SUMMARY|OK \]|FAILED" "$out/${tool}_circular.log" >>"$summary"
done

if [[ "${GDN_SKIP_CHECK:-0}" != 1 ]]; then
  # shellcheck disable=SC2086
  timed 160 "$out/check.log" "kda-harness check --op gdn_replayssm --backend cuda" \
    "$bin/kda-harness" check --op gdn_replayssm --backend cuda --no-progress \
    --manifest "$root/golden/manifest.json" --json "$out/check.json" ${GDN_CHECK_ARGS:-}
  # The summary table and the failure causes (the log holds each first failure whole).
  grep -E "^ *(suite|contract|reference|pure-double|golden|kernel|envelope)|passed|failed|cause|circ=1" \
    "$out/check.log" | head -40 >>"$summary"
fi

if [[ "${GDN_SKIP_BENCH:-0}" != 1 ]]; then
  for op in gdn_replayssm kda_replayssm; do
    # shellcheck disable=SC2086
    timed 40 "$out/bench_$op.log" "bench $op" "$bin/replayssm_bench" --op "$op" --heads 16x32 --batch 1,32,256 \
      --L 1,8,16 --state f32 --ring f32 --out-dir /tmp/gdn \
      ${GDN_BENCH_ARGS:---copy-gib 0.5 --copy-reps 10 --target-seconds 0.05 --min-samples 30}
    cp /tmp/gdn/replayssm_bench.csv "$out/bench_$op.csv" 2>/dev/null
  done
fi

if [[ "${GDN_SKIP_KDA:-1}" != 1 ]]; then
  export KDA_GPU_ROLLOUTS=${KDA_GPU_ROLLOUTS:-150}
  export KDA_GPU_ADVERSARIAL_ROLLOUTS=$((KDA_GPU_ROLLOUTS / 4))
  for t in kernel_vs_reference kernel_adversarial kernel_graph kernel_launcher; do
    timed 60 "$out/$t.log" "${t}_test (KDA_GPU_ROLLOUTS=$KDA_GPU_ROLLOUTS)" "$bin/${t}_test"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/$t.log" >>"$summary"
  done
fi
cat "$summary"
grep -hE "^copy|^gdn |^H16" "$out"/bench_*.log 2>/dev/null
