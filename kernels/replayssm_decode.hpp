// The default operator's CUDA launcher: the ReplaySSM decode step (semantics.md) over DLPack
// views of device tensors. Declared here, as contract/validate.hpp declares its contract, so
// that the engine's device mirror (DeviceMirror::step) steps the default operator without
// naming it; defined in that operator's folder (its cuda_launch.cpp) on kernels/replayssm_launch.hpp.
//
// replayssm_decode() validates the arguments through contract/ (the same checks, in the same
// order, with the same ContractError as the reference; nothing is launched when one fails),
// then enqueues ONE step on `stream` and returns. It never synchronizes the host, allocates
// nothing and copies nothing device->host, so it can be captured into a CUDA graph and the
// graph replayed with new contents of write_pos / force_flush / ssm_state_indices.
//
// Includable from host-only C++ (g++): only cuda_runtime_api.h types appear here.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <cstdint>

#include "contract/step_args.hpp"
#include "kernels/row_status.hpp"

namespace kda::cuda {

// Validates (kda::validate(args, Backend::Cuda)) and enqueues one decode step on `stream`.
// row_status, if given, must be a 1-D int32 tensor of B elements on the same CUDA device
// (any stride); it receives each row's RowStatus flags. A malformed row_status throws
// std::invalid_argument (not a contract error: it is the harness's own argument).
// Launch failures (cudaGetLastError after the launch) throw std::runtime_error.
// Returns the dims that validate() inferred.
Dims replayssm_decode(const StepArgs& args, cudaStream_t stream, DLTensor* row_status = nullptr);

}  // namespace kda::cuda
