#!/usr/bin/env bash
# Fuzzes continuously on one machine: builds the libFuzzer targets (the `fuzz` preset:
# clang-14, ASan + UBSan), then for each target
#   1. fuzzes in fork mode over all cores (-fork=JOBS -ignore_crashes=1: a finding is saved
#      and fuzzing goes on) for a time budget, from a working corpus seeded with the committed
#      seed corpus and regression inputs, with the target's dictionary;
#   2. merges the working corpus into a minimal one that keeps all coverage (-merge=1);
#   3. minimizes every finding (-minimize_crash=1) and replays it once more to print it;
# and finally reports the line coverage of contract/ and reference/ reached by the merged
# corpora (scripts/fuzz-coverage.sh: a -fprofile-instr-generate -fcoverage-mapping build,
# llvm-profdata-14 / llvm-cov-14).
#
# usage: scripts/fuzz-continuous.sh [-t SECONDS] [-j JOBS] [-w WORK_DIR] [-r ROUNDS] [-u] [TARGET...]
#   -t  fuzzing time per target and round (default 3600)
#   -j  fork-mode workers (default: all cores, nproc)
#   -w  working folder: corpora, findings, logs, coverage (default fuzz-work; ignored by git)
#   -r  rounds (default 1; 0 = until stopped): each round fuzzes every target, merges,
#       minimizes and reports coverage, so a long run leaves a usable state after each round
#   -u  copy the merged corpora over fuzz/corpus/<target>/ at the end (to commit new seeds)
#   TARGET: contract_fuzzer, reference_fuzzer, cli_input_fuzzer (default: every CPU target the
#       build lists in build-fuzz/fuzz/fuzz_targets.txt)
# Findings: WORK_DIR/findings/<target>/crash-* and their minimized forms *.min; keep each as a
# regression input (fuzz/README.md, "Findings").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=3600
jobs=$(nproc)
work=fuzz-work
rounds=1
update_seeds=0
while getopts "t:j:w:r:u" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    w) work=$OPTARG ;;
    r) rounds=$OPTARG ;;
    u) update_seeds=1 ;;
    *) sed -n '2,25p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
mkdir -p "$work"
work=$(cd "$work" && pwd)
summary=$work/summary.txt

echo "== build (fuzz preset)" | tee -a "$summary"
cmake --preset fuzz >"$work/configure.log"
[[ ${#targets[@]} -gt 0 ]] || mapfile -t targets <build-fuzz/fuzz/fuzz_targets.txt
cmake --build --preset fuzz --target "${targets[@]}" -j "$jobs" >"$work/build.log"

# exec/s of a fork-mode log: the last status line's figure (libFuzzer prints
# "#N: cov: C ft: F corp: K exec/s: E oom/timeout/crash: ... time: Ts job: J").
last_status() { grep -E '^#[0-9]+: cov:' "$1" | tail -1 || true; }

# What a finding is about: the line after "FUZZ FINDING", else the sanitizer's or libFuzzer's
# error line; digits dropped so that one bug with other sizes counts once.
signature() {
  "$1" "$2" 2>&1 | awk '/FUZZ FINDING/ {getline; print; exit}
    /runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ {print; exit}' | tr -d '0-9' | cut -c1-160 || true
}

round=0
while [[ $rounds -eq 0 || $round -lt $rounds ]]; do
  round=$((round + 1))
  coverage_args=()
  for t in "${targets[@]}"; do
    bin=$root/build-fuzz/fuzz/$t
    corpus=$work/corpus/$t
    merged=$work/merged/$t
    findings=$work/findings/$t
    mkdir -p "$corpus" "$findings"
    seeds=("$root/fuzz/corpus/$t")
    [[ -d $root/fuzz/regressions/$t ]] && seeds+=("$root/fuzz/regressions/$t")
    log=$work/fuzz-$t-round$round.log
    echo "== round $round: $t, ${seconds}s on $jobs worker(s)" | tee -a "$summary"
    start=$(date +%s)
    (cd "$work" && "$bin" -fork="$jobs" -ignore_crashes=1 -max_total_time="$seconds" -max_len=4096 -len_control=20 \
      -dict="$root/fuzz/dict/$t.dict" -artifact_prefix="$findings/" "$corpus" "${seeds[@]}") >"$log" 2>&1 || true
    echo "$t: fuzzed $(($(date +%s) - start)) s; last status: $(last_status "$log")" | tee -a "$summary"

    rm -rf "$merged" && mkdir -p "$merged"
    "$bin" -merge=1 "$merged" "$corpus" "${seeds[@]}" >"$work/merge-$t.log" 2>&1 || true
    rm -rf "$corpus" && cp -r "$merged" "$corpus"  # the next round starts from the merged set
    echo "$t: merged corpus $(find "$merged" -type f | wc -l) inputs, $(du -sk "$merged" | cut -f1) KiB" | tee -a "$summary"

    # One minimized reproducer per distinct finding (its first line, digits dropped); the
    # other inputs of the same finding are only listed.
    declare -A seen=()
    for crash in "$findings"/{crash,leak,timeout,oom}-*; do
      [[ -e $crash && $(basename "$crash") != *.* ]] || continue  # artifacts have no dot; ours do
      sig=$(signature "$bin" "$crash")
      if [[ -n ${seen[$sig]+x} ]]; then
        echo "$t: $(basename "$crash"): same finding as $(basename "${seen[$sig]}")" >>"$summary"
        continue
      fi
      seen[$sig]=$crash
      [[ -e $crash.min ]] || "$bin" -minimize_crash=1 -runs=5000 -max_total_time=30 -exact_artifact_path="$crash.min" \
        "$crash" >"$crash.minimize.log" 2>&1 || true
      [[ -e $crash.min ]] || cp "$crash" "$crash.min"
      "$bin" "$crash.min" >"$crash.min.txt" 2>&1 || true
      echo "$t: finding $crash.min: $sig" | tee -a "$summary"
    done
    unset seen
    coverage_args+=("$t=$merged")
  done
  echo "== round $round: coverage of the merged corpora" | tee -a "$summary"
  scripts/fuzz-coverage.sh -o "$work/coverage" "${coverage_args[@]}" | grep -E 'TOTAL|lines|not linked|aborted' |
    tee -a "$summary" || true
done

if [[ $update_seeds -eq 1 ]]; then
  for t in "${targets[@]}"; do
    rm -rf "$root/fuzz/corpus/$t" && mkdir -p "$root/fuzz/corpus/$t"
    # Findings are not seeds: inputs that still fail belong in fuzz/regressions/<t>/open/.
    for f in "$work/merged/$t"/*; do
      "$root/build-fuzz/fuzz/$t" -runs=0 "$f" >/dev/null 2>&1 && cp "$f" "$root/fuzz/corpus/$t/"
    done
    echo "seeds: fuzz/corpus/$t now holds $(ls "$root/fuzz/corpus/$t" | wc -l) inputs" | tee -a "$summary"
  done
fi
echo "summary: $summary"
