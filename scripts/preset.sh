#!/usr/bin/env bash
# Prints the CMake preset for this machine: default (with the CUDA kernel) where nvcc is
# installed, cpu (kernel off, build-cpu/) where it is not.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then echo default; else echo cpu; fi
