#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite through ctest (GPU tests skip, with their
# reason, on a machine without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default
cmake --build --preset default -j "$(nproc)"
ctest --preset default -j "$(nproc)" "$@"
