// The plain-data form of one step that the launcher hands to the CUDA kernel: raw byte
// pointers (byte_offset applied), dtype codes and element strides. C++17: of the contract
// it takes only the dtype table (contract/dtype_table.hpp, C++17), so the .cu file does not
// depend on the C++20 headers.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "contract/dtype_table.hpp"

namespace kda::cuda::detail {

// Same numbering as kda::ScalarType (checked by a static_assert in the launcher).
enum DtypeCode : int32_t { kF32 = 0, kBF16 = 1, kF16 = 2, kI32 = 3, kI64 = 4 };

// One tensor: data pointer (null = absent), dtype, element strides of the view the kernel
// uses (see ReplayParams for each tensor's view; unused trailing strides are 0).
struct TensorRef {
  char* ptr = nullptr;
  int32_t dtype = kF32;
  int64_t stride[4] = {0, 0, 0, 0};
};

struct ReplayParams {
  int64_t B = 0, H = 0, HV = 0, K = 0, V = 0, L = 0, slots = 0;
  TensorRef qkv;        // [B, 2HK + HV V]
  TensorRef a;          // viewed [B, HV, K] (K stride 0 under scalar_gate)
  TensorRef b;          // [B, HV]
  TensorRef A_log;      // [HV]
  TensorRef dt_bias;    // viewed [HV, K] (K stride 0 under scalar_gate)
  TensorRef state;      // [slots, HV, V, K]
  TensorRef d_cache;    // [slots, HV, L, V]
  TensorRef k_cache;    // [slots, H, L, K]
  TensorRef g_cache;    // viewed [slots, HV, L, K], float32 (K stride 0 under scalar_gate)
  TensorRef out;        // viewed [B, HV, V]
  TensorRef indices;    // [B], int32 or int64
  TensorRef write_pos;  // [B], int32
  TensorRef force_flush;  // [B], int32; ptr null when absent
  TensorRef row_status;   // [B], int32; ptr null when the caller passed none
  float scale = 1.0f;
  float lower_bound = 0.0f;
  bool has_lower_bound = false;
  bool l2norm = false;
  // Layouts the launcher found copyable as rows of whole 16-byte chunks (unit last stride,
  // 16-byte aligned base, every other stride and a CTA's row a multiple of 16 bytes): the
  // kernels then stage those blocks with no per-CTA alignment decisions (dense_layouts()).
  bool rings_dense = false;  // d_cache, k_cache and g_cache (d and k alone under scalar_gate)
  bool state_dense = false;  // initial_state
  // The plain packed decode (spec/packed-decode.md): L = 1, no rings, write_pos or
  // force_flush (null); every row flushes at cursor 0, and beta stays float32 instead of
  // going through b's dtype. Selects the kernels' kPlain instantiation.
  bool plain = false;
  // GDN ReplaySSM (spec/gdn-replayssm.md): one gate per value head. a [B, HV], dt_bias [HV]
  // and g_cache [slots, HV, L] are viewed with a K stride of 0, so every column computes the
  // same gate and the KDA step is GDN's exactly; a g record is one element, written once (not
  // once per column to the same address); the kernels stage a record's gate once and every
  // column reads it by broadcast (head_cta.cuh's RingChunk::gs).
  bool scalar_gate = false;
  // circular_replay (spec/circular-replay.md; launched for GDN only): record j of a live row
  // sits at ring slot (cache_base[row] + j) mod L, an unforced natural flush with L > 1 is a
  // history checkpoint (the state before the token, and the record appended at the cursor's
  // slot). Selects the kCircular instantiation of the long-ring and K > 128 kernels, which
  // take every L. Last in the struct, so that the other fields keep their offsets.
  bool circular = false;
  TensorRef cache_base;  // [B], int32; read under `circular` only
};

// Sets rings_dense and state_dense from the tensors' addresses and strides.
void dense_layouts(ReplayParams& p);

// Thread blocks of one step: the kernel for K <= 128 (replayssm_kernel.cu) or, for larger
// K, the chunked one (replayssm_wide_kernel.cu).
int64_t replayssm_blocks(const ReplayParams& p);
// Enqueues the step; returns the launch's cudaGetLastError() (success, launching nothing,
// when there are no blocks: HV = 0).
cudaError_t launch_replayssm(const ReplayParams& p, cudaStream_t stream);

// A circular ring (ReplayParams::circular): the long-ring kernel for K <= 128 at every L,
// else the K > 128 kernel, each in its kCircular instantiation.
cudaError_t launch_replayssm_circular(const ReplayParams& p, cudaStream_t stream);

// K <= 128 and L <= 17 (replayssm_short_ring_kernel.cu): replayssm_blocks' grid, or, where
// short_ring_splits_heads() (grids that would leave most of the GPU idle, V a multiple of 32
// and at least 64), each head split over V / 32 CTAs of 32 rows.
cudaError_t launch_replayssm_short_ring(const ReplayParams& p, cudaStream_t stream);
bool short_ring_splits_heads(const ReplayParams& p);
// The same step on 4-warp CTAs (replayssm_short_ring_4warp_kernel.cu), and where it measured
// faster than launch_replayssm_short_ring: 16-bit states on grids of >= 1,024 CTAs, float32
// at L > 1 on >= 2,048 (docs/kernel-design.md).
cudaError_t launch_replayssm_short_ring_4warp(const ReplayParams& p, cudaStream_t stream);
bool short_ring_4warp_pays(const ReplayParams& p);

int64_t replayssm_wide_blocks(const ReplayParams& p);
cudaError_t launch_replayssm_wide(const ReplayParams& p, cudaStream_t stream);
cudaError_t launch_replayssm_wide_circular(const ReplayParams& p, cudaStream_t stream);

}  // namespace kda::cuda::detail
