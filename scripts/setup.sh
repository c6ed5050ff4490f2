#!/usr/bin/env bash
# Installs every dependency of the harness from Debian's packages (and the workflow schema
# linter from PyPI), then the Python side (scripts/setup-python.sh). Idempotent. The CUDA
# toolkit (nvcc) is optional: expected at /usr/local/cuda for the default preset; without it,
# build with the CPU-only preset (`cmake --preset cpu`), which scripts/run-tests.sh and
# run-check.sh pick by themselves.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(cmake ninja-build g++ libeigen3-dev librapidcheck-dev libgtest-dev libgmock-dev
      clang-14 libclang-rt-14-dev llvm-14 libdlpack-dev nlohmann-json3-dev libcli11-dev
      libfmt-dev libbenchmark-dev python3 python3-pip python3-venv ccache pkg-config yamllint)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# check-jsonschema (GitHub's workflow schema, vendored: runs offline) for the lint.workflows
# test; a Debian python refuses pip installs outside a venv unless told otherwise.
if ! command -v check-jsonschema >/dev/null; then
  python3 -m pip install -q check-jsonschema 2>/dev/null ||
    python3 -m pip install -q --break-system-packages check-jsonschema 2>/dev/null ||
    echo "setup: could not install check-jsonschema from PyPI; the lint.workflows test will be skipped" >&2
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "setup: no nvcc (expected /usr/local/cuda/bin/nvcc): build with the CPU-only preset, cmake --preset cpu"
fi
# The Python side (a virtual environment in the preset's build folder); KDA_SETUP_PYTHON=0
# leaves it out (.ci/run checks the configurations first, then runs the test command).
if [ "${KDA_SETUP_PYTHON:-1}" != 0 ]; then
  bash "$(dirname "$0")/setup-python.sh"
fi
echo "setup: all dependencies present"
