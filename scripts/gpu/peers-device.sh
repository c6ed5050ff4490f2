#!/usr/bin/env bash
# SGLang's CuTe-DSL KDA decode and FlashInfer's GDN decode judged on the GPU as a user has them
# (installed with pip), with flash-linear-attention's decodes beside them.
#   here:  python3 -m pip download ... (scripts/gpu/README.md: the wheels' list) into a folder W;
#          bash scripts/gpu/wheel-parts.sh split W      (-> build-wheels-1/ ..);
#          bash python/device-tests.sh --fetch-wheels BUILD; bash scripts/gpu/fla-device.sh
#          --fetch-wheels BUILD; scripts/gpu/stage-carry.sh BUILD
#   there: one warm call per build-wheels-N (carry it; `true`), then one carrying build-carry with
#          tar xJf build-carry/gpu.tar.xz && bash scripts/gpu/peers-device.sh build-gpu [JUDGE ARGS...]
# What runs, each part under its own time limit, summary in $OUT/summary.txt:
#   1. the wheels joined (wheel-parts.sh join) and installed without an index or dependencies;
#   2. each library imported, and the version of each;
#   3. scripts/gpu/peer_judge.py with JUDGE ARGS (default: every installed step, every sample):
#      the tables `<step>.md` and every failure in full.
# Each part's limit in seconds: PEERS_JUDGE_SECONDS (480).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD="$(realpath "${1:-build-gpu}")"
shift || true
OUT="${OUT:-/tmp/peers-device}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
PY="${PYTHON:-python3}"
. scripts/gpu/device-parts.sh
nvidia-smi -L >>"$summary" 2>&1
part join 300 bash scripts/gpu/wheel-parts.sh join "$BUILD/peer-wheels"
# The peers' wheels, and fla's and pytest's (the staged build's) where the peers' have none of that name.
wheels=("$BUILD"/peer-wheels/*.whl)
for w in "$BUILD"/wheels/{fla_core,einops,pytest,ml_dtypes,iniconfig,pluggy}-*.whl; do
  [ -e "$w" ] && ! compgen -G "$BUILD/peer-wheels/$(basename "$w" | cut -d- -f1)-*.whl" >/dev/null && wheels+=("$w")
done
part pip 300 "$PY" -m pip install --no-index --no-deps "${wheels[@]}"
export KDA_HARNESS_LIBRARY="$BUILD/capi/libkda_harness_capi.so" PYTHONPATH="$PWD/python"
part import 300 "$PY" -c '
import importlib, traceback
for name in ("cutlass", "flashinfer", "flashinfer.gdn_decode", "fla"):
    try:
        importlib.import_module(name); print(name, "imported")
    except Exception:
        print(name, "failed:"); traceback.print_exc()
from kda_harness.peers import flashinfer, sglang_cutedsl
print("sglang", sglang_cutedsl.version(), "flashinfer", flashinfer.version())
sglang_cutedsl._module(); print("sglang cutedsl_kda loaded")'
part judge "$((${PEERS_JUDGE_SECONDS:-480} + 30))" "$PY" scripts/gpu/peer_judge.py "$OUT" --seconds "${PEERS_JUDGE_SECONDS:-480}" "$@"
cat "$summary"
