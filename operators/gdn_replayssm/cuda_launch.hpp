// gdn_replayssm on our CUDA kernel (CUDA builds only; ../shared/spec/gdn-replayssm.md):
// SGLang's ReplaySSM with one scalar gate per value head. It runs the KDA kernels with the gate
// broadcast over the K channels (ReplayParams::scalar_gate: a [B, HV], dt_bias [HV] and g_cache
// [slots, HV, L] viewed with a K stride of 0), which is GDN's step exactly; a g record is written
// once. Circular rings (spec/circular-replay.md) run on the long-ring and K > 128 kernels'
// circular instantiations; prefix_gate_cache is accepted and not read, as on SGLang's GDN path.
// The same launch guarantees as replayssm_decode() (kernels/replayssm_decode.hpp): nothing
// launched when a check fails, no host synchronization, allocation or device->host copy.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include "contract/step_args.hpp"

namespace kda::cuda {

// The dims of a GDN call (B = mixed_qkv.shape[0], (slots, HV, V, K) = initial_state.shape,
// L = d_cache.shape[2], H from mixed_qkv's last dim) after checking what the kernel relies on:
// every tensor present with GDN's rank and a shape consistent with those dims, float tensors
// float32/bfloat16/float16 (g_cache float32), int32 indices, write_pos and force_flush,
// mixed_qkv's last stride 1, K and V powers of two, HV a multiple of H, all on one CUDA
// device, with circular_replay an int32 cache_base of B elements, no pre-decayed keys (not
// implemented; the contract refuses them for GDN too, G29). Throws
// std::invalid_argument naming the first that fails. Not the operator's contract: its checks,
// order and messages (G1-G32 and the harness's extensions) are the operator's validate.
// cuda_kernel_dims.cpp.
Dims gdn_kernel_dims(const StepArgs& args);

// Enqueues one GDN step on `stream` for arguments the operator's validate accepted (callers
// validate first: this launcher does not raise the contract's errors); row_status as for
// replayssm_decode(). Runs gdn_kernel_dims() first. Returns the dims.
Dims gdn_replayssm_decode(const StepArgs& args, cudaStream_t stream, DLTensor* row_status = nullptr);

}  // namespace kda::cuda
