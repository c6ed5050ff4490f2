// kda_packed_decode on our CUDA kernel (CUDA builds only): ReplaySSM's L = 1 path, on which
// every row flushes at cursor 0 and no ring is read or written, launched with the plain flag
// (ReplayParams::plain): no write_pos, force_flush or rings, and beta kept in float32
// instead of being rounded through b's dtype. The same launch guarantees as
// replayssm_decode() (kernels/replayssm_decode.hpp): validated first, nothing launched on a
// contract error, no host synchronization, allocation or device->host copy.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include "contract/step_args.hpp"

namespace kda::cuda {

// Validates (kda::validate_packed_decode(args, Backend::Cuda); the ring arguments of args
// are ignored) and enqueues one step on `stream`; row_status as for replayssm_decode().
Dims packed_decode(const StepArgs& args, cudaStream_t stream, DLTensor* row_status = nullptr);

}  // namespace kda::cuda
