// The row's runtime values and the current token, for one CTA of the decode kernel.
// Every load of a phase is issued before the first use, so a phase costs one memory round
// trip (v1 spent ~10 dependent rounds here and ~8 more on the duplicate scan at B = 1024).
// Assumes blockDim.x <= 512 (block reductions) and a tile of at most blockDim.x state rows.
#pragma once
#include <cmath>

#include "kernels/dtype_convert.cuh"
#include "kernels/replayssm_params.hpp"
#include "kernels/replayssm_smem.cuh"
#include "kernels/row_status.hpp"

namespace kda::cuda::detail {

struct RowVerdict {
  int64_t slot = -1;
  int32_t cursor = 0;
  int32_t status = kRowOk;
  bool flush = false;
};

// Slot, cursor and flush flag of the row; range flags (the duplicate flag comes later).
__device__ __forceinline__ RowVerdict read_row(const ReplayParams& p, int64_t row) {
  RowVerdict r;
  r.slot = load_int(p.indices, row);
  r.cursor = reinterpret_cast<const int32_t*>(p.write_pos.ptr)[row * p.write_pos.stride[0]];
  const bool forced =
      p.force_flush.ptr != nullptr &&
      reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]] != 0;
  if (r.slot < 0) {
    r.status = kRowPadding;
    return r;
  }
  if (r.slot >= p.slots) r.status |= kRowSlotOutOfRange;
  if (r.cursor < 0 || r.cursor >= p.L) r.status |= kRowCursorOutOfRange;
  r.flush = forced || r.cursor == p.L - 1;
  return r;
}

// Whether another row names `slot` (>= 0). Eight index loads in flight per thread.
__device__ __forceinline__ bool names_taken_slot(const ReplayParams& p, int64_t row, int64_t slot) {
  bool dup = false;
  const int64_t nth = blockDim.x;
  for (int64_t base = threadIdx.x; base < p.B; base += 8 * nth) {
    int64_t idx[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) idx[u] = base + u * nth < p.B ? load_int(p.indices, base + u * nth) : -1;
#pragma unroll
    for (int u = 0; u < 8; ++u) dup |= base + u * nth != row && idx[u] == slot;
  }
  return dup;
}

__device__ __forceinline__ float block_sum(float x, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < nwarps; ++w) total += scratch[w];
  return total;
}

// Two block sums in one pair of barriers (scratch holds 2 x warps floats).
__device__ __forceinline__ void block_sum2(float& x, float& y, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    x += __shfl_xor_sync(0xffffffffu, x, o);
    y += __shfl_xor_sync(0xffffffffu, y, o);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = x, scratch[16 + warp] = y;
  __syncthreads();
  x = y = 0;
  for (int w = 0; w < nwarps; ++w) x += scratch[w], y += scratch[16 + w];
}

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// g of one column from x = a + dt_bias (semantics.md: both gates).
__device__ __forceinline__ float gate_of(const ReplayParams& p, float A, float x) {
  if (p.has_lower_bound) return p.lower_bound * sigmoidf(A * x);
  const float softplus = x <= 20.0f ? log1pf(expf(x)) : x;
  return -A * softplus;
}

struct Token {
  float q_norm, k_norm;  // divisors (1 without L2 norm)
  float kq;              // k . (q * scale)
  float beta;
  int64_t h;
};

// The token's inputs for this thread's column (c = threadIdx.x) and state row (threadIdx.x of
// the tile), in registers: issued before the row's index loads are used.
struct TokenLoads {
  float q = 0, k = 0, a = 0, dt = 0, v = 0, A_log = 0, b = 0;
};

__device__ __forceinline__ int64_t qkv_offset(const ReplayParams& p, int64_t row, int64_t head, int part) {
  // part 0: q of query head `head`, 1: k, 2: v of value head `head` (the last dim has stride 1, V2)
  return row * p.qkv.stride[0] + (part == 0 ? head * p.K : part == 1 ? (p.H + head) * p.K : 2 * p.H * p.K + head * p.V);
}

__device__ __forceinline__ float load_a(const ReplayParams& p, int64_t row, int64_t hv, int64_t c) {
  return load_float(p.a.ptr, row * p.a.stride[0] + hv * p.a.stride[1] + c * p.a.stride[2], p.a.dtype);
}
__device__ __forceinline__ float load_dt(const ReplayParams& p, int64_t hv, int64_t c) {
  return load_float(p.dt_bias.ptr, hv * p.dt_bias.stride[0] + c * p.dt_bias.stride[1], p.dt_bias.dtype);
}

__device__ __forceinline__ TokenLoads issue_token_loads(const ReplayParams& p, int64_t row, int64_t hv, int64_t vbase,
                                                        int bv) {
  TokenLoads l;
  const int64_t h = hv / (p.HV / p.H), c = threadIdx.x;
  l.A_log = load_float(p.A_log.ptr, hv * p.A_log.stride[0], p.A_log.dtype);
  l.b = load_float(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  if (c < p.K) {
    l.q = load_float(p.qkv.ptr, qkv_offset(p, row, h, 0) + c, p.qkv.dtype);
    l.k = load_float(p.qkv.ptr, qkv_offset(p, row, h, 1) + c, p.qkv.dtype);
    l.a = load_a(p, row, hv, c);
    l.dt = load_dt(p, hv, c);
  }
  if (c < bv) l.v = load_float(p.qkv.ptr, qkv_offset(p, row, hv, 2) + vbase + c, p.qkv.dtype);
  return l;
}

// Raw q, k -> m.qs, m.kn; g -> m.gc; the tile's v -> m.vv (columns past the block size, when
// K > threads, loaded here); beta.
__device__ __forceinline__ Token store_token(const ReplayParams& p, const TokenLoads& l, int64_t row, int64_t hv,
                                             const SmemTile& m, int bv) {
  Token t;
  t.h = hv / (p.HV / p.H);
  const float A = expf(l.A_log);
  const int64_t c0 = threadIdx.x;
  if (c0 < p.K) {
    m.qs[c0] = l.q;
    m.kn[c0] = l.k;
    m.gc[c0] = gate_of(p, A, l.a + l.dt);
  }
  for (int64_t c = c0 + blockDim.x; c < p.K; c += blockDim.x) {
    m.qs[c] = load_float(p.qkv.ptr, qkv_offset(p, row, t.h, 0) + c, p.qkv.dtype);
    m.kn[c] = load_float(p.qkv.ptr, qkv_offset(p, row, t.h, 1) + c, p.qkv.dtype);
    m.gc[c] = gate_of(p, A, load_a(p, row, hv, c) + load_dt(p, hv, c));
  }
  if (c0 < bv) m.vv[c0] = l.v;
  // beta goes through b's dtype: a step function, so a one-ulp difference in the float32
  // sigmoid next to a rounding midpoint would move beta by a whole ulp of that dtype. Take
  // exp in double and round it (the correctly rounded float32 exp, as a CPU's expf gives),
  // then the float32 operations of 1 / (1 + e), so beta matches a host float32 sigmoid.
  const float e = static_cast<float>(exp(-static_cast<double>(l.b)));
  t.beta = round_to(p.b.dtype, 1.0f / (1.0f + e));
  return t;
}

// Phase 2 (after a barrier, on an accepted row): norms, q*scale and k normalized in place,
// k.(q*scale), exp(g). Each column is rewritten by the thread that wrote it.
__device__ __forceinline__ void finish_token(const ReplayParams& p, Token& t, const SmemTile& m) {
  t.q_norm = t.k_norm = 1.0f;
  if (p.l2norm) {
    float qq = 0, kk = 0;
    for (int64_t c = threadIdx.x; c < p.K; c += blockDim.x) {
      qq += m.qs[c] * m.qs[c];
      kk += m.kn[c] * m.kn[c];
    }
    block_sum2(qq, kk, m.scratch);
    t.q_norm = sqrtf(qq + 1e-6f);
    t.k_norm = sqrtf(kk + 1e-6f);
  }
  float kq = 0;
  for (int64_t c = threadIdx.x; c < p.K; c += blockDim.x) {
    const float qs = m.qs[c] / t.q_norm * p.scale, kn = m.kn[c] / t.k_norm;
    m.qs[c] = qs;
    m.kn[c] = kn;
    m.egc[c] = expf(m.gc[c]);
    kq += kn * qs;
  }
  t.kq = block_sum(kq, m.scratch);  // its barriers also publish qs, kn, egc
}

}  // namespace kda::cuda::detail
