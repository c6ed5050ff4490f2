// Our CUDA kernel's launch of one operator (CUDA builds only). Each operator our kernel serves
// defines its own in its folder (operators/<op>/cuda_launch.cpp: `kda::engine::<op>_cuda_kernel`)
// and declares it in its CMakeLists.txt (kda_cuda_kernel, operators/CMakeLists.txt); the build
// makes the table of them from those declarations, so engine/ names no operator. The CUDA
// backend, the benchmark and the operator's CUDA plugin (plugins/cuda_kernel/) read this.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <string_view>

#include "contract/step_args.hpp"
#include "contract/validate.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

struct CudaKernel {
  // The operator's contract (the contract library), which the plugin applies before copying
  // the index tensors to the host for the runtime-value checks.
  Dims (*validate)(const StepArgs& args, kda::Backend backend) = nullptr;
  // Launches one step on `stream` (row status into `status`, when given); returns the dims.
  Dims (*launch)(const StepArgs& device_args, cudaStream_t stream, DLTensor* status) = nullptr;
  // Whether the launcher applies the operator's contract itself; if not, the backend calls the
  // operator's validate first.
  bool validates = true;
  // plugin.h's KDA_DT_* bits: the index dtypes the operator's contract accepts (the plugin's
  // envelope).
  uint32_t index_dtypes = KDA_DT_ALL_INDICES;
  // plugin.h's KDA_RING_* bits: the ring variants the launcher computes (the backend's and the
  // plugin's Envelope::ring_modes).
  uint32_t ring_modes = KDA_RING_LINEAR;
  // The benchmark (bench/): whether the peer's recorded table (../shared/peer, --peer-table)
  // holds this operator's rows, and the operator (of this table, without a ring) whose launcher
  // it times on the same tensors beside this one's L = 1 step, its rows `packed` ("": none).
  bool peer_recorded = false;
  std::string_view timed_beside = {};
};

// The launcher of the operator named `op`; nullptr where this build has none.
const CudaKernel* cuda_kernel_of(std::string_view op);

}  // namespace kda::engine
