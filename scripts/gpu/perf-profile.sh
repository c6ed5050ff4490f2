#!/usr/bin/env bash
# Where the kernel spends its time, in one short device call (ab-device.sh runs it on its
# first bench binary):
#   ncu (--clock-control none) of one launch, with per-SASS-instruction stall samples
#   (source page), for the cases named in PROFILE_CASES ("heads:B:L:state:mode" ...),
#   and the SASS of every replayssm function (kernel and non-inlined callees).
# usage: scripts/gpu/perf-profile.sh [bench-binary]   (default build-bench-carry/replayssm_bench,
#   as scripts/gpu/bench-stage.sh stages it)
set -u
bench=${1:-build-bench-carry/replayssm_bench}
out=${OUT:-$PWD/profile-out}
mkdir -p "$out"
for cfg in ${PROFILE_CASES:-32x32:256:8:f32:append 32x32:1:1:f32:append}; do
  IFS=: read -r heads B L state mode <<<"$cfg"
  name="${heads}_B${B}_L${L}_${state}_${mode}"
  ncu --clock-control none -k regex:replayssm_ --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis \
    -o "$out/$name" -f "$bench" --profile --heads "$heads" --batch "$B" --L "$L" --state "$state" \
    --modes "$mode" --out-dir /tmp >"$out/$name.log" 2>&1
  echo "ncu $name: exit $?"
  ncu -i "$out/$name.ncu-rep" --page details --csv >"$out/$name-details.csv" 2>&1
  ncu -i "$out/$name.ncu-rep" --page source --csv --print-source sass >"$out/$name-source.csv" 2>&1
  rm -f "$out/$name.ncu-rep"
done
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$bench" |
    awk '/Function : /{on = $0 ~ /replayssm|rebuild|stage_block|store_state/} on' >"$out/sass.txt"
fi
