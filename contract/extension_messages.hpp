// The fixed messages of the harness extensions (contract.md, "Harness extensions"). SGLang
// has no message for these, so the harness chose its own; the "[kda-harness]" prefix marks
// them as the harness's. contract/error_catalog.json repeats each one (a test holds the two
// equal byte for byte).
#pragma once

namespace kda::extension_message {
inline constexpr const char* kViewA =
    "[kda-harness] `a` cannot be viewed as (B, -1): B = mixed_qkv.shape[0] is 0 or does not divide a.numel().";
inline constexpr const char* kFloatDtype =
    "[kda-harness] `mixed_qkv`, `a`, `b`, `A_log`, `dt_bias`, `initial_state`, `d_cache`, `k_cache` and `out` "
    "must have dtype float32, bfloat16 or float16.";
inline constexpr const char* kIndexDtype = "[kda-harness] `ssm_state_indices` must have dtype int32 or int64.";
inline constexpr const char* kRingSlots =
    "[kda-harness] `d_cache`, `k_cache` and `g_cache` must have as many slots (shape[0]) as `initial_state`.";
inline constexpr const char* kStrides =
    "[kda-harness] strides must not be negative, and no two elements of a tensor the step writes "
    "(`initial_state`, `d_cache`, `k_cache`, `g_cache`, `out`) may share memory.";
inline constexpr const char* kExtents =
    "[kda-harness] a tensor's element count and byte extent must fit in int64 (no framework can allocate a "
    "larger one).";
inline constexpr const char* kBackendCpu = "[kda-harness] the CPU reference needs every tensor on the CPU (kDLCPU).";
inline constexpr const char* kBackendCuda =
    "[kda-harness] the CUDA kernel needs every tensor on a CUDA device (kDLCUDA).";
inline constexpr const char* kSlotIndex =
    "[kda-harness] a non-negative `ssm_state_indices` entry must be less than the slot count initial_state.shape[0].";
inline constexpr const char* kWritePos =
    "[kda-harness] `write_pos` of a non-padding row must lie in [0, L-1], L = d_cache.shape[2].";
inline constexpr const char* kDuplicateSlot =
    "[kda-harness] two non-padding rows of `ssm_state_indices` name the same slot.";
}  // namespace kda::extension_message
