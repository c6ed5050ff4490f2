#!/usr/bin/env bash
# Sets up, builds and runs the main job: `kda-harness check` (the conformance suite).
# Without the CUDA toolkit it uses the CPU-only preset (build-cpu/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
preset="$(bash scripts/preset.sh)"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)" --target kda-harness
dir=build
if [ "$preset" = cpu ]; then dir=build-cpu; fi
"./$dir/tools/kda-harness" check "$@"
