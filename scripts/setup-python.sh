#!/usr/bin/env bash
# The Python side: what the package's tests need from PyPI (pytest, numpy, ml_dtypes), and the
# package itself (`pip install ./python` builds its C library with scikit-build-core).
# Idempotent: each is installed only when missing. KDA_REINSTALL_PYTHON=1 reinstalls the package.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  echo "setup-python: $PY has no pip (Debian: apt-get install python3-pip python3-venv)" >&2
  exit 1
fi
# A Debian system Python refuses pip installs outside a venv unless told otherwise.
export PIP_BREAK_SYSTEM_PACKAGES=1
if ! "$PY" -c "import pytest, numpy, ml_dtypes" >/dev/null 2>&1; then
  "$PY" -m pip install -q pytest numpy ml_dtypes
fi
if [ "${KDA_REINSTALL_PYTHON:-0}" = 1 ] || ! "$PY" -c "import kda_harness" >/dev/null 2>&1; then
  if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
  "$PY" -m pip install -q ./python
fi
echo "setup-python: pytest, numpy, ml_dtypes and kda_harness present"
