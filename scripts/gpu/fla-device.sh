#!/usr/bin/env bash
# flash-linear-attention's recurrent decode kernels judged on the GPU as a user has them (fla-core
# installed with pip), and timed beside our kernel in the same run.
#   here:  bash scripts/gpu/fla-device.sh --fetch-wheels BUILD   (fla-core 0.6.0 and einops into
#          BUILD/wheels, beside python/device-tests.sh --fetch-wheels' pytest and ml_dtypes), then
#          scripts/gpu/stage-carry.sh BUILD and carry build-carry
#   there: tar xJf build-carry/gpu.tar.xz && bash scripts/gpu/fla-device.sh build-gpu [N]
# What runs, each part under its own time limit, summary in $OUT/summary.txt:
#   1. scripts/gpu/peer_judge.py: kda_harness.check on kda_harness.peers.fla's steps, every suite,
#      the general sample space and K = V = 128 (tables fla_recurrent_*.md, failures in full);
#      (fla_recurrent_kda and fla_recurrent_gdn);
#   2. the pytest plugin on the same steps (-k kernel_truth, -x, --junitxml), as a CI job would;
#   3. our bench's kda_packed_decode rows at production shapes, then scripts/gpu/fla_bench.py
#      times fla's T = 1 decode at the same shapes (fla-bench.md).
# Each part's limit in seconds: FLA_JUDGE_SECONDS (420), FLA_PYTEST_SECONDS (120 a step),
# FLA_BENCH_SECONDS (240 each for our bench and fla's); N, the cases per suite of part 1.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
if [ "${1:-}" = "--fetch-wheels" ]; then
  python3 -m pip download -q --no-deps -d "${2:-build}/wheels" fla-core==0.6.0 einops
  exit $?
fi
BUILD="$(realpath "${1:-build-gpu}")"
N="${2:-}"
OUT="${OUT:-/tmp/fla-device}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
PY="${PYTHON:-python3}"
"$PY" -m pip install -q --no-index --no-deps --find-links "$BUILD/wheels" fla-core einops pytest ml_dtypes \
  >"$OUT/pip.txt" 2>&1 || { echo "pip install failed (pip.txt)" >>"$summary"; }
export KDA_HARNESS_LIBRARY="$BUILD/capi/libkda_harness_capi.so" PYTHONPATH="$PWD/python"
. scripts/gpu/device-parts.sh
nvidia-smi -L >>"$summary" 2>&1
part judge "$((${FLA_JUDGE_SECONDS:-420} + 30))" "$PY" scripts/gpu/peer_judge.py "$OUT" --step fla.kda_step --step fla.gdn_step --seconds "${FLA_JUDGE_SECONDS:-420}" ${N:+--n "$N"}
empty=$(mktemp -d)  # the plugin's cases are the whole collection
for step in kda_step gdn_step; do
  part "pytest-$step" "${FLA_PYTEST_SECONDS:-120}" env -C "$empty" "$PY" -m pytest -q -p kda_harness.pytest_plugin -p no:cacheprovider \
    --kda-backend "kda_harness.peers.fla:$step" --kda-device cuda --kda-n 10 -k kernel_truth -x \
    --junitxml "$OUT/pytest-junit-$step.xml"
done
part bench "${FLA_BENCH_SECONDS:-240}" "$BUILD/bench/replayssm_bench" --op kda_packed_decode --L 1 --heads 32x32,16x32 --batch 1,32,256 \
  --state f32,bf16 --graph-max-batch 256 --out-dir "$OUT"
part fla-bench "${FLA_BENCH_SECONDS:-240}" "$PY" scripts/gpu/fla_bench.py "$OUT/replayssm_bench.csv" "$OUT/fla-bench.md"
cat "$summary"
