#!/usr/bin/env bash
# Line coverage of contract/, reference/, operators/ (and cases/) reached by fuzz corpora,
# through clang's source-based coverage: the fuzz targets and the libraries they test are built with
# -fprofile-instr-generate -fcoverage-mapping (no sanitizers) in their own build folder, each
# target runs every input of its corpora once (libFuzzer -runs=0, one process per input), and llvm-profdata-14 /
# llvm-cov-14 report per target and for all targets together.
#
# usage: scripts/fuzz-coverage.sh [-b BUILD_DIR] [-o OUT_DIR] TARGET=DIR[,DIR...] ...
#   e.g. scripts/fuzz-coverage.sh contract_fuzzer=fuzz/corpus/contract_fuzzer,fuzz/regressions/contract_fuzzer
#   -b  coverage build folder (default build-fuzzcov)
#   -o  where profiles, reports and the HTML report go (default fuzz-coverage-out)
# Prints the per-file table of each target and of the union, and a one-line summary per
# report ("TOTAL lines: covered/total (percent)") to OUT_DIR/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-fuzzcov
out=fuzz-coverage-out
while getopts "b:o:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || { sed -n '2,14p' "$0"; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DKDA_ENABLE_CUDA=OFF -DKDA_BUILD_FUZZERS=ON \
  "-DKDA_FUZZ_INSTRUMENT=-fprofile-instr-generate;-fcoverage-mapping" \
  "-DKDA_FUZZ_ENGINE=-fsanitize=fuzzer" >"$out/configure.log"
targets=()
for spec in "$@"; do targets+=("${spec%%=*}"); done
cmake --build "$build" --target "${targets[@]}" -j "${KDA_FUZZ_BUILD_JOBS:-$(nproc)}" >"$out/build.log"

# Only the harness's own libraries count (not the fuzz sources, not third-party headers).
sources=("$root/contract" "$root/reference" "$root/operators" "$root/cases")
report_total() {  # label, profdata, binaries...
  local label=$1 profile=$2
  shift 2
  local objects=("$1")
  for b in "${@:2}"; do objects+=(-object "$b"); done
  llvm-cov-14 report "${objects[@]}" -instr-profile="$profile" "${sources[@]}" >"$out/report-$label.txt"
  local line
  line=$(grep '^TOTAL' "$out/report-$label.txt")
  # Columns: regions, missed, cover, functions, missed, executed, lines, missed, cover, ...
  awk -v l="$label" '{printf "%s: TOTAL lines %d/%d covered (%s), functions %s, regions %s\n", l, $8 - $9, $8, $10, $7, $4}' \
    <<<"$line" | tee -a "$out/summary.txt"
  for dir in contract reference operators cases; do
    awk -v l="$label" -v n="$dir" 'index($1, n "/") == 1 {t += $8; m += $9}
      END {if (t) printf "%s:   %s/ lines %d/%d (%.1f%%)\n", l, n, t - m, t, 100 * (t - m) / t}' \
      "$out/report-$label.txt" | tee -a "$out/summary.txt"
  done
  # The report knows only the files linked into the targets; name the others.
  local missing=()
  for f in contract/*.cpp reference/*.cpp operators/*/contract*.cpp operators/*/reference_step.cpp; do
    grep -q "^$f " "$out/report-$label.txt" || missing+=("$f")
  done
  [[ ${#missing[@]} -eq 0 ]] || echo "$label:   not linked into the target(s), so not counted: ${missing[*]}" |
    tee -a "$out/summary.txt"
}

: >"$out/summary.txt"
binaries=()
profiles=()
for spec in "$@"; do
  target=${spec%%=*}
  IFS=',' read -ra dirs <<<"${spec#*=}"
  bin="$build/fuzz/$target"
  rm -f "$out/$target"-*.profraw
  # One process per input: an input that aborts (an open finding) loses only its own
  # profile, not the rest of the corpus'. %4m merges the profiles online into 4 files.
  : >"$out/run-$target.log"
  find "${dirs[@]}" -maxdepth 1 -type f ! -name '.*' ! -name '*.md' -print0 | sort -z |
    while IFS= read -r -d '' input; do
      LLVM_PROFILE_FILE="$out/$target-%4m.profraw" "$bin" -runs=0 "$input" >>"$out/run-$target.log" 2>&1 ||
        echo "coverage: $target aborted on $input (a finding; its profile is lost)" | tee -a "$out/summary.txt"
    done
  llvm-profdata-14 merge -sparse "$out/$target"-*.profraw -o "$out/$target.profdata"
  report_total "$target" "$out/$target.profdata" "$bin"
  binaries+=("$bin")
  profiles+=("$out/$target.profdata")
done
if [[ ${#binaries[@]} -gt 1 ]]; then
  llvm-profdata-14 merge -sparse "${profiles[@]}" -o "$out/all.profdata"
  report_total all "$out/all.profdata" "${binaries[@]}"
fi
profile=${profiles[0]}
[[ ${#binaries[@]} -gt 1 ]] && profile=$out/all.profdata
objects=("${binaries[0]}")
for b in "${binaries[@]:1}"; do objects+=(-object "$b"); done
llvm-cov-14 show "${objects[@]}" -instr-profile="$profile" "${sources[@]}" -format=html -output-dir="$out/html" >/dev/null
echo "coverage reports: $out/report-*.txt, HTML: $out/html/index.html"
