#!/usr/bin/env bash
# Prints the CMake preset for this machine: default (with the CUDA kernel) where nvcc is
# installed, cpu (kernel off, build-cpu/) where it is not. With --dir: that preset's build folder.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then preset=default; dir=build; else preset=cpu; dir=build-cpu; fi
if [ "${1:-}" = --dir ]; then echo "$dir"; else echo "$preset"; fi
