// Our CUDA kernel as a backend reaches an operator's launcher through this (CUDA builds only):
// each operator's folder defines its own (operators/<op>/cuda_launch.cpp) and the table of
// them (operators/cuda_kernel_table.cpp) answers by name, so engine/ names no operator.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <string_view>

#include "contract/step_args.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

struct CudaKernel {
  // Launches one step on `stream` (row status into `status`, when given); returns the dims.
  Dims (*launch)(const StepArgs& device_args, cudaStream_t stream, DLTensor* status) = nullptr;
  // Whether the launcher applies the operator's contract itself; if not, the backend calls the
  // operator's validate first.
  bool validates = true;
  // plugin.h's KDA_RING_* bits: the ring variants the launcher computes (the backend's
  // Envelope::ring_modes).
  uint32_t ring_modes = KDA_RING_LINEAR;
};

// The launcher of the operator named `op`; nullptr where this build has none.
const CudaKernel* cuda_kernel_of(std::string_view op);

}  // namespace kda::engine
