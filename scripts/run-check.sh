#!/usr/bin/env bash
# Sets up, builds and runs the main job: `kda-harness check` (the conformance suite).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default
cmake --build --preset default -j "$(nproc)" --target kda-harness
./build/tools/kda-harness check "$@"
