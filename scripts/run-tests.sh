#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite through ctest (GPU tests skip, with their
# reason, on a machine without a GPU). Without the CUDA toolkit it uses the CPU-only preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
preset="$(bash scripts/preset.sh)"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
