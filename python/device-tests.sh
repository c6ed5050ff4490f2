#!/usr/bin/env bash
# The Python package's tests on a GPU machine with torch but no network or compiler: the C
# library and the plugins come from a build here, the missing PyPI packages as wheels.
#   here:  bash python/device-tests.sh --fetch-wheels [BUILD]   (cp312 wheels into BUILD/wheels)
#   there: bash python/device-tests.sh [BUILD]
#          carry BUILD/capi/libkda_harness_capi.so, BUILD/plugins/*.so and BUILD/wheels
# KDA_CUDA_PLUGIN may name another CUDA plugin than the build's (our kernel's).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fetch-wheels" ]; then
  BUILD="${2:-build}"
  python3 -m pip download -q --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
    -d "$BUILD/wheels" pytest ml_dtypes
  exit 0
fi
BUILD="$(realpath "${1:-build}")"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import pytest, ml_dtypes" >/dev/null 2>&1; then
  "$PY" -m pip install -q --no-index --find-links "$BUILD/wheels" pytest ml_dtypes
fi
export KDA_HARNESS_LIBRARY="$BUILD/capi/libkda_harness_capi.so"
export KDA_CPU_PLUGIN="$BUILD/plugins/libkda_cpu_example_kda_replayssm.so"
export KDA_CPU_PLUGIN_MUTANT="$BUILD/plugins/libkda_cpu_example_kda_replayssm_mutant_gqa_head_mod.so"
export KDA_CPU_PACKED_DECODE_PLUGIN="$BUILD/plugins/libkda_cpu_example_kda_packed_decode.so"
export KDA_CPU_GDN_PLUGIN="$BUILD/plugins/libkda_cpu_example_gdn_replayssm.so"
export KDA_CPU_PACKED_DECODE_PLUGIN_MUTANT="$BUILD/plugins/libkda_cpu_example_kda_packed_decode_mutant_beta_rounded_through_b.so"
export KDA_CUDA_PLUGIN="${KDA_CUDA_PLUGIN:-$BUILD/plugins/libkda_cuda_kernel_kda_replayssm.so}"
export PYTHONPATH="$PWD/python"
"$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || true
exec "$PY" -m pytest -q -rs -p no:cacheprovider python/tests
