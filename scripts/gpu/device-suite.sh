#!/usr/bin/env bash
# The whole GPU check of the kernel, on a machine with a GPU (the device machine's H200):
#   1. every kernel test through ctest, GPU tests spread over the visible GPUs with a CTest
#      resource spec (full counts: >= 1,000 random kernel-vs-reference rollouts);
#   2. compute-sanitizer memcheck (with leak check), racecheck and initcheck over the same
#      suites at reduced counts.
# Logs under $OUT (default ./gpu-suite-out): summary.txt (read this first), ctest.log,
# sanitizers.log, resource-spec.json.
#
# usage: scripts/gpu/device-suite.sh [build-dir]        (default: build-kernel)
# The build happens on the development machine (the GPU machine has no RapidCheck/DLPack):
#   cmake --preset default -B build-kernel
#   cmake --build build-kernel --target kernel_tests -j2
# then carry build-kernel/property_tests/{CTestTestfile.cmake,kernel_*_test} (scripts/gpu/README.md).
# Knobs: KDA_GPU_ROLLOUTS (default 1000), KDA_GPU_TRUTH_ROLLOUTS (300),
# KDA_GPU_ADVERSARIAL_ROLLOUTS (200), KDA_SANITIZER_ROLLOUTS (25), KDA_SKIP_SANITIZERS=1,
# KDA_SANITIZER_TOOLS (order; default "memcheck racecheck initcheck"), KDA_SKIP_CTEST=1 (sanitizers only).
set -u
build=${1:-build-kernel}
out=${OUT:-$PWD/gpu-suite-out}
mkdir -p "$out"
tests="$(cd "$build/property_tests" && pwd)"
summary="$out/summary.txt"
here="$(cd "$(dirname "$0")" && pwd)"
suites="kernel_vs_reference kernel_ground_truth kernel_adversarial kernel_graph kernel_launcher"

{
  echo "== device"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1
  echo "== ctest, full counts"
} >"$summary"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[[ "$ngpu" -ge 1 ]] || ngpu=1
"$here/resource-spec.sh" "$out/resource-spec.json"

if [[ "${KDA_SKIP_CTEST:-0}" != 1 ]]; then
start=$(date +%s)
(cd "$tests" && ctest -L gpu --resource-spec-file "$out/resource-spec.json" -j "$ngpu" -V) >"$out/ctest.log" 2>&1
rc=$?
{
  echo "ctest exit $rc after $(($(date +%s) - start)) s on $ngpu GPU(s)"
  grep -E "tests passed|tests failed|\*\*\*Failed|Not Run|SKIPPED|rollouts|ratio|worst|BOUND EXCEEDED" "$out/ctest.log" | sed 's/^[0-9]*: //'
} >>"$summary"
fi

if [[ "${KDA_SKIP_SANITIZERS:-0}" != 1 ]]; then
  echo "== compute-sanitizer (reduced counts)" >>"$summary"
  export KDA_GPU_ROLLOUTS=${KDA_SANITIZER_ROLLOUTS:-25}
  export KDA_GPU_TRUTH_ROLLOUTS=$(((KDA_GPU_ROLLOUTS + 2) / 3))
  export KDA_GPU_ADVERSARIAL_ROLLOUTS=$KDA_GPU_ROLLOUTS
  : >"$out/sanitizers.log"
  for tool in ${KDA_SANITIZER_TOOLS:-memcheck racecheck initcheck}; do
    extra=()
    [[ $tool == memcheck ]] && extra=(--leak-check full)
    for suite in $suites; do
      filter='*'
      # The 81-combination sweep runs in full under memcheck only (racecheck/initcheck are slower).
      [[ $suite == kernel_vs_reference && $tool != memcheck ]] && filter='-*EveryDtypeCombination'
      log="$out/.san.$tool.$suite"
      start=$(date +%s)
      compute-sanitizer --tool "$tool" --error-exitcode 99 "${extra[@]}" "$tests/${suite}_test" \
        --gtest_filter="$filter" >"$log" 2>&1
      rc=$?
      {
        echo "---- $tool $suite (exit $rc)"
        cat "$log"
      } >>"$out/sanitizers.log"
      verdict=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
      tests_line=$(grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]" "$log" | head -2 | tr '\n' ' ')
      echo "$tool $suite: exit $rc, $(($(date +%s) - start)) s, ${verdict:-no sanitizer summary}; $tests_line" >>"$summary"
      rm -f "$log"
    done
  done
fi
cat "$summary"
