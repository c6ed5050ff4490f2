#!/usr/bin/env bash
# The benchmark's device run, on the GPU machine, from the staged binaries
# (scripts/gpu/bench-stage.sh):
#   1. the sweep: replayssm_bench -> $OUT/replayssm_bench.{csv,json}, $OUT/bench.log (with the
#      peer's recorded times beside it when build-bench-carry/peer-table.md was staged);
#   2. ncu (--clock-control none) on append and flush at B=256, L=8 and L=64 (f32 state),
#      and L=8 bf16 state -> $OUT/ncu.csv;
#   3. SASS of the decode kernel and its instruction mix -> $OUT/sass.txt;
#   4. the GPU's clocks before and after -> $OUT/device.txt.
# Knobs: KDA_BENCH_SWEEP_TIMEOUT (seconds, default 300; the CSV keeps every finished case), BENCH_ARGS (extra replayssm_bench options, e.g. a subset), KDA_BENCH_SKIP_NCU=1,
# KDA_BENCH_SKIP_SWEEP=1, NCU_CONFIGS (space-separated "state:L:kind" triples).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin=${KDA_BENCH_BIN:-$root/build-bench-carry/replayssm_bench}
out=${OUT:-$PWD/bench-out}
mkdir -p "$out"
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,utilization.gpu --format=csv "$@"; }

{ echo "== before"; smi; } >"$out/device.txt" 2>&1
if [[ "${KDA_BENCH_SKIP_SWEEP:-0}" != 1 ]]; then
  start=$(date +%s)
  # shellcheck disable=SC2086
  peer_args=()
  [[ -f "$(dirname "$bin")/peer-table.md" ]] && peer_args=(--peer-table "$(dirname "$bin")/peer-table.md")
  timeout "${KDA_BENCH_SWEEP_TIMEOUT:-300}" "$bin" --out-dir "$out" "${peer_args[@]}" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
  echo "sweep: exit ${PIPESTATUS[0]} after $(($(date +%s) - start)) s" | tee -a "$out/device.txt"
fi
{ echo "== after sweep"; smi; } >>"$out/device.txt" 2>&1

if [[ "${KDA_BENCH_SKIP_NCU:-0}" != 1 ]]; then
  : >"$out/ncu.csv"
  for cfg in ${NCU_CONFIGS:-f32:8:append f32:8:flush f32:64:append f32:64:flush bf16:8:append bf16:8:flush}; do
    IFS=: read -r state L kind <<<"$cfg"
    echo "## $state L=$L $kind B=256 H=HV=32" >>"$out/ncu.csv"
    ncu --clock-control none -k regex:replayssm_ --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
      --csv --page details \
      "$bin" --profile --heads 32x32 --batch 256 --L "$L" --state "$state" --modes "$kind" --out-dir /tmp \
      >>"$out/ncu.csv" 2>&1
    echo "ncu $cfg: exit $?" | tee -a "$out/device.txt"
  done
fi

if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$bin" >/tmp/all.sass 2>&1
  awk '/Function : /{on = $0 ~ /replayssm_/} on' /tmp/all.sass >/tmp/kernel.sass
  {
    echo "== instruction mix of the replayssm kernels (sm_90a SASS)"
    grep -E '^ +/\*[0-9a-f]{4}\*/' /tmp/kernel.sass | sed -E 's#^ +/\*[0-9a-f]+\*/ +##; s#^@!?U?P[0-9T] +##' |
      awk '{print $1}' | sort | uniq -c | sort -rn | head -60
    echo "== SASS"
    cat /tmp/kernel.sass
  } >"$out/sass.txt"
fi
{ echo "== end"; smi; } >>"$out/device.txt" 2>&1
cat "$out/device.txt"
