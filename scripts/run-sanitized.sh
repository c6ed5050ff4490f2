#!/usr/bin/env bash
# The sanitizer job of CI: builds the `fuzz` preset whole (clang-14; ASan+UBSan on every
# target: the libFuzzer targets, the command line, the C library, the plugins, the tests) into
# build-fuzz/, then
#   1. runs the cli, contract, python and fuzz ctest labels there, under the sanitizers (python:
#      the runtime preloaded into the interpreter; fuzz: each target replays its corpus and
#      regression inputs);
#   2. fuzzes each libFuzzer target (build-fuzz/fuzz/fuzz_targets.txt) for KDA_FUZZ_SECONDS
#      (default 30) from its committed corpus and fixed regression inputs, with its dictionary;
#      new inputs go to build-fuzz/fuzz-run/TARGET (the committed folders are only read), a
#      crash input to build-fuzz/fuzz-run/TARGET-findings/ and fails the run.
# Usage: scripts/run-sanitized.sh [PYTHON] (default: the venv of scripts/setup-python.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-$PWD/$(bash scripts/preset.sh --dir)/venv/bin/python}"
if [ ! -x "$python" ]; then
  echo "run-sanitized: no $python (bash scripts/setup-python.sh makes it)" >&2
  exit 2
fi
cmake --preset fuzz -DPython3_EXECUTABLE="$python"
cmake --build --preset fuzz -j "$(nproc)"
# Left out: the command-line tests that run the harness under an address-space limit (RLIMIT_AS)
# or compare its peak memory with its estimate; AddressSanitizer reserves terabytes of shadow
# address space at start and doubles the memory in use, so neither can hold under it.
# Also left out: the test whose crashing plugin overruns a heap block for glibc to abort on
# (ASan reports the overrun first, as it should).
left_out='^cli\.(case_over_memory_budget_is_refused_before_allocating|memory_estimate_is_not_below_the_peak|out_of_memory_is_exit_2_with_a_message|check_survives_threads_it_cannot_start|validate_refuses_input_over_its_limit_before_reading_it|an_abort_is_a_failed_case_and_the_run_goes_on)$'
echo "run-sanitized: not run under the sanitizers (address-space limits, peak memory, a planted overrun): $left_out"
# Fatal signals are left to the harness's own handler (`check --isolate` and the fatal-signal
# report are under test); ASan still checks every memory access. Python's test sets its own.
export ASAN_OPTIONS="${ASAN_OPTIONS:-handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0}"
ctest --preset fuzz -j "$(nproc)" -L '^(cli|contract|python|fuzz)$' -E "$left_out"
seconds="${KDA_FUZZ_SECONDS:-30}"
while read -r target; do
  binary="build-fuzz/fuzz/$target"
  corpus="fuzz/corpus/$target"
  if [ ! -x "$binary" ]; then echo "run-sanitized: $binary was not built" >&2; exit 1; fi
  run="build-fuzz/fuzz-run/$target"
  rm -rf "$run" "$run-seeds" "$run-findings" && mkdir -p "$run" "$run-seeds" "$run-findings"
  # The seeds: the corpus and the fixed findings, not the open ones (regressions/*/open/,
  # which libFuzzer would read: it descends into folders).
  find "$corpus" "fuzz/regressions/$target" -maxdepth 1 -type f ! -name '*.md' -exec cp -t "$run-seeds" {} + 2>/dev/null || true
  dict=()
  if [ -f "fuzz/dict/$target.dict" ]; then dict=(-dict="fuzz/dict/$target.dict"); fi
  echo "run-sanitized: fuzzing $target for $seconds s"
  "$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$run-findings/" "${dict[@]}" \
    "$run" "$run-seeds" </dev/null 2>&1 | tail -n 15
done < build-fuzz/fuzz/fuzz_targets.txt
echo "run-sanitized: passed"
