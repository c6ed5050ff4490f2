#!/usr/bin/env bash
# Writes a CTest resource specification with one "gpus" entry per visible GPU, so that
#   ctest --resource-spec-file <file> -j <N>
# runs the GPU tests (RESOURCE_GROUPS "gpus:1") side by side, one GPU each; every test reads
# the GPU it was given from CTEST_RESOURCE_GROUP_0_GPUS and selects it with cudaSetDevice.
#
# usage: scripts/gpu/resource-spec.sh [output.json]      (default: stdout)
#   KDA_TESTS_PER_GPU=n   let n tests share one GPU (slots per GPU; default 1)
# GPUs are counted with `nvidia-smi -L`; CUDA_VISIBLE_DEVICES, when set, limits them (CUDA then
# renumbers the visible ones 0..n-1, which is what cudaSetDevice expects).
set -euo pipefail

count=0
if [[ -n "${CUDA_VISIBLE_DEVICES+x}" ]]; then
  if [[ -n "$CUDA_VISIBLE_DEVICES" && "$CUDA_VISIBLE_DEVICES" != "-1" ]]; then
    IFS=',' read -ra visible <<<"$CUDA_VISIBLE_DEVICES"
    count=${#visible[@]}
  fi
elif command -v nvidia-smi >/dev/null 2>&1; then
  count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
slots=${KDA_TESTS_PER_GPU:-1}

entries=""
for ((i = 0; i < count; i++)); do
  entries+="${entries:+, }{\"id\": \"$i\", \"slots\": $slots}"
done
json="{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"gpus\": [${entries}]}]}"
if [[ $# -ge 1 ]]; then
  printf '%s\n' "$json" >"$1"
  echo "resource-spec.sh: $count GPU(s), $slots slot(s) each -> $1" >&2
else
  printf '%s\n' "$json"
fi
