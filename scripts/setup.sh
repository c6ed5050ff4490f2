#!/usr/bin/env bash
# Installs every dependency of the harness from Debian's packages. Idempotent.
# The CUDA toolkit (nvcc) is expected at /usr/local/cuda, as on the build machines.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(cmake ninja-build g++ libeigen3-dev librapidcheck-dev libgtest-dev libgmock-dev
      clang-14 libclang-rt-14-dev llvm-14 libdlpack-dev nlohmann-json3-dev libcli11-dev
      libfmt-dev libbenchmark-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "setup: nvcc not found (expected /usr/local/cuda/bin/nvcc); the CUDA kernel cannot be compiled" >&2
  exit 1
fi
bash "$(dirname "$0")/setup-python.sh"
echo "setup: all dependencies present"
