// The ReplaySSM decode step on the GPU (semantics.md), kernel v4.
//
// Work unit: one WARP per (row, value head, 16 state rows); a CTA is 4 independent warps
// (64 state rows), so a (row, head) with V = 128 is 8 warps in 2 CTAs. There is no block
// barrier: everything a warp needs it computes itself (row verdict, norms, gates, ring
// sums), and the only shared memory is the warp's own staging buffer for ring deltas.
//
// Lane l owns columns [l*NC, l*NC + NC) of each of the warp's 16 rows (NC = K/32, at most
// 4; K > 128 is walked in 128-column chunks), held in registers from the checkpoint load
// to the checkpoint store. So each state row is read and written by the warp as one
// contiguous span (lane_columns.cuh), and the checkpoint loads are issued before the ring
// work that they wait behind.
//
// Per warp:
//   1. verdict: padding / slot / cursor / duplicate slot (rejected: zeros to out, return);
//   2. token: norms of q and k, k.(q scale), beta (through b's dtype), A; per lane its
//      columns of q*scale, k and the gate g;
//   3. rebuild: S = S0 diag(exp(total)) + sum_j d_j w_j^T with w_j = k_j exp(total -
//      prefix_j); d_j and w_j rounded to out's dtype (the spec's rounding point), products
//      accumulated in float32 FMA (a product of two bf16/f16 values is exact in float32,
//      so this equals a tensor-core dot up to summation order); then decay by exp(g);
//   4. S.k and S.(q scale) per row in one transposed warp reduction; d, o -> out;
//   5. flush: checkpoint = S + d k^T from registers; append: d (and, from one warp per
//      (row, head), g and the key once per query-head group) at the cursor.
#include <cmath>

#include "kernels/dtype_convert.cuh"
#include "kernels/lane_columns.cuh"
#include "kernels/replayssm_params.hpp"
#include "kernels/row_status.hpp"
#include "kernels/warp_reduce.cuh"

namespace kda::cuda::detail {
namespace {

constexpr int kRowsPerWarp = 16;  // S.k and S.q of 16 rows = 32 values: one per lane after the reduction
constexpr int kWarpsPerCta = 4;
constexpr int kRowsPerCta = kRowsPerWarp * kWarpsPerCta;
constexpr int kRecordChunk = 16;  // ring deltas staged in shared memory per pass

struct RowVerdict {
  int64_t slot = -1;
  int32_t cursor = 0;
  int32_t status = kRowOk;
  bool flush = false;
};

// Warp-uniform: every lane returns the same verdict.
__device__ RowVerdict judge_row(const ReplayParams& p, int64_t row) {
  const int lane = threadIdx.x & 31;
  RowVerdict r;
  r.slot = load_int(p.indices, row);
  if (r.slot < 0) {
    r.status = kRowPadding;
    return r;
  }
  if (r.slot >= p.slots) r.status |= kRowSlotOutOfRange;
  r.cursor = reinterpret_cast<const int32_t*>(p.write_pos.ptr)[row * p.write_pos.stride[0]];
  if (r.cursor < 0 || r.cursor >= p.L) r.status |= kRowCursorOutOfRange;
  bool dup = false;
#pragma unroll 4
  for (int64_t other = lane; other < p.B; other += 32) dup |= other != row && load_int(p.indices, other) == r.slot;
  if (__any_sync(kFullMask, dup)) r.status |= kRowDuplicateSlot;
  const bool forced =
      p.force_flush.ptr != nullptr &&
      reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]] != 0;
  r.flush = forced || r.cursor == p.L - 1;
  return r;
}

__host__ __device__ __forceinline__ int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ __forceinline__ int64_t off4(const TensorRef& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return i0 * t.stride[0] + i1 * t.stride[1] + i2 * t.stride[2] + i3 * t.stride[3];
}

// The current token's per-(row, head) scalars, the same in every lane.
struct Token {
  int64_t row, hv, h;
  int64_t q0, k0, v0;    // element offsets of q, k (head h) and v (head hv) of the row in mixed_qkv
  float q_norm, k_norm;  // divisors (1 without L2 norm)
  float kq;              // k . (q * scale)
  float beta, A;
};

// A lane's columns [c0, c0 + NC) of the current token; inactive (all zero) when c0 >= K.
template <int NC>
struct LaneCols {
  int64_t c0;
  bool active;
  float qs[NC], kn[NC], g[NC];  // q * scale, k (both normalized), gate
};

template <int NC>
__device__ __forceinline__ int64_t lane_first_col(int64_t chunk) {
  return chunk * 32 * NC + (threadIdx.x & 31) * NC;
}

// Raw q and k of the lane's columns of chunk `chunk` (zeros past K).
template <int NC>
__device__ bool load_qk(const ReplayParams& p, const Token& t, int64_t chunk, float (&q)[NC], float (&k)[NC]) {
  const int64_t c0 = lane_first_col<NC>(chunk);
#pragma unroll
  for (int n = 0; n < NC; ++n) q[n] = k[n] = 0.0f;
  if (c0 >= p.K) return false;
  load_cols(p.qkv.ptr, p.qkv.dtype, t.q0 + c0, 1, q);  // mixed_qkv's last dim has stride 1 (contract V2)
  load_cols(p.qkv.ptr, p.qkv.dtype, t.k0 + c0, 1, k);
  return true;
}

template <int NC, bool kMultiChunk>
__device__ Token make_token(const ReplayParams& p, int64_t row, int64_t hv) {
  Token t;
  t.row = row;
  t.hv = hv;
  t.h = hv / (p.HV / p.H);
  const int64_t base = row * p.qkv.stride[0];
  t.q0 = base + t.h * p.K;
  t.k0 = base + p.H * p.K + t.h * p.K;
  t.v0 = base + 2 * p.H * p.K + hv * p.V;
  const int64_t chunks = kMultiChunk ? p.K / (32 * NC) : 1;
  t.q_norm = t.k_norm = 1.0f;
  if (p.l2norm) {
    float qq = 0, kk = 0;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      float q[NC], k[NC];
      load_qk<NC>(p, t, ch, q, k);
#pragma unroll
      for (int n = 0; n < NC; ++n) qq += q[n] * q[n], kk += k[n] * k[n];
    }
    t.q_norm = sqrtf(warp_sum(qq) + 1e-6f);
    t.k_norm = sqrtf(warp_sum(kk) + 1e-6f);
  }
  float kq = 0;
  for (int64_t ch = 0; ch < chunks; ++ch) {
    float q[NC], k[NC];
    load_qk<NC>(p, t, ch, q, k);
#pragma unroll
    for (int n = 0; n < NC; ++n) kq += (k[n] / t.k_norm) * (q[n] / t.q_norm * p.scale);
  }
  t.kq = warp_sum(kq);
  const float b = load_float(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  // beta goes through b's dtype: a step function, so a one-ulp difference in the float32
  // sigmoid next to a rounding midpoint would move beta by a whole ulp of that dtype. Take
  // exp in double and round it (the correctly rounded float32 exp, as a CPU's expf gives),
  // then the float32 operations of 1 / (1 + e), so beta matches a host float32 sigmoid.
  const float e = static_cast<float>(exp(-static_cast<double>(b)));
  t.beta = round_to(p.b.dtype, 1.0f / (1.0f + e));
  t.A = expf(load_float(p.A_log.ptr, hv * p.A_log.stride[0], p.A_log.dtype));
  return t;
}

template <int NC>
__device__ LaneCols<NC> lane_cols(const ReplayParams& p, const Token& t, int64_t chunk) {
  LaneCols<NC> c;
  c.c0 = lane_first_col<NC>(chunk);
  float q[NC], k[NC], a[NC] = {}, bias[NC] = {};
  c.active = load_qk<NC>(p, t, chunk, q, k);
  if (c.active) {
    load_cols(p.a.ptr, p.a.dtype, t.row * p.a.stride[0] + t.hv * p.a.stride[1] + c.c0 * p.a.stride[2], p.a.stride[2], a);
    load_cols(p.dt_bias.ptr, p.dt_bias.dtype, t.hv * p.dt_bias.stride[0] + c.c0 * p.dt_bias.stride[1],
              p.dt_bias.stride[1], bias);
  }
#pragma unroll
  for (int n = 0; n < NC; ++n) {
    c.qs[n] = q[n] / t.q_norm * p.scale;
    c.kn[n] = k[n] / t.k_norm;
    const float x = a[n] + bias[n];
    float g;  // semantics.md: both gates
    if (p.has_lower_bound) g = p.lower_bound * sigmoidf(t.A * x);
    else g = -t.A * (x <= 20.0f ? log1pf(expf(x)) : x);
    c.g[n] = c.active ? g : 0.0f;
  }
  return c;
}

// S <- the decayed state S_dec of the warp's rows [v_first, v_first + nrows) on the lane's
// columns: S0 diag(exp(total)) + sum_j d_j w_j^T, then diag(exp(g)). `staged` is the
// warp's kRecordChunk x kRowsPerWarp buffer.
template <int NC>
__device__ void rebuild(const ReplayParams& p, const Token& t, const RowVerdict& r, const LaneCols<NC>& c,
                        int64_t v_first, int nrows, float* staged, float (&S)[kRowsPerWarp][NC]) {
  const int lane = threadIdx.x & 31;
  // Checkpoint rows first: their loads are in flight during the ring sums below.
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
#pragma unroll
    for (int n = 0; n < NC; ++n) S[rr][n] = 0.0f;
    if (c.active && rr < nrows)
      load_cols(p.state.ptr, p.state.dtype, off4(p.state, r.slot, t.hv, v_first + rr, c.c0), p.state.stride[3], S[rr]);
  }
  const int64_t gs = p.g_cache.stride[3], ks = p.k_cache.stride[3];
  float total[NC] = {};
  for (int j = 0; j < r.cursor; ++j) {
    float g[NC] = {};
    if (c.active) load_cols(p.g_cache.ptr, kF32, off4(p.g_cache, r.slot, t.hv, j, c.c0), gs, g);
#pragma unroll
    for (int n = 0; n < NC; ++n) total[n] += g[n];
  }
  if (r.cursor > 0) {
    float e[NC];
#pragma unroll
    for (int n = 0; n < NC; ++n) e[n] = expf(total[n]);
#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr)
#pragma unroll
      for (int n = 0; n < NC; ++n) S[rr][n] *= e[n];
  }
  const int32_t od = p.out.dtype;
  float prefix[NC] = {};
  for (int jc = 0; jc < r.cursor; jc += kRecordChunk) {
    const int jn = min(kRecordChunk, r.cursor - jc);
    __syncwarp();  // the previous chunk's reads of `staged` are done
#pragma unroll
    for (int i = 0; i < kRecordChunk * kRowsPerWarp / 32; ++i) {
      const int idx = lane + 32 * i, j = idx / kRowsPerWarp, rr = idx % kRowsPerWarp;
      float d = 0.0f;
      if (j < jn && rr < nrows)
        d = round_to(od, load_float(p.d_cache.ptr, off4(p.d_cache, r.slot, t.hv, jc + j, v_first + rr), p.d_cache.dtype));
      staged[idx] = d;
    }
    __syncwarp();
    for (int j = 0; j < jn; ++j) {
      float g[NC] = {}, k[NC] = {}, w[NC];
      if (c.active) {
        load_cols(p.g_cache.ptr, kF32, off4(p.g_cache, r.slot, t.hv, jc + j, c.c0), gs, g);
        load_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, t.h, jc + j, c.c0), ks, k);
      }
#pragma unroll
      for (int n = 0; n < NC; ++n) {
        prefix[n] += g[n];
        w[n] = round_to(od, k[n] * expf(total[n] - prefix[n]));
      }
      const float4* d4 = reinterpret_cast<const float4*>(staged + j * kRowsPerWarp);
#pragma unroll
      for (int q = 0; q < kRowsPerWarp / 4; ++q) {
        const float4 dq = d4[q];  // the same address in every lane: a broadcast
        const float dr[4] = {dq.x, dq.y, dq.z, dq.w};
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int n = 0; n < NC; ++n) S[4 * q + i][n] = fmaf(dr[i], w[n], S[4 * q + i][n]);
      }
    }
  }
  float eg[NC];
#pragma unroll
  for (int n = 0; n < NC; ++n) eg[n] = expf(c.g[n]);
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr)
#pragma unroll
    for (int n = 0; n < NC; ++n) S[rr][n] *= eg[n];
}

// Lane 2i gets row i's S.k over the lane columns of the whole warp, lane 2i+1 its S.(q scale).
template <int NC>
__device__ float row_dots(const float (&S)[kRowsPerWarp][NC], const LaneCols<NC>& c) {
  float part[2 * kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    float sk = 0.0f, sq = 0.0f;
#pragma unroll
    for (int n = 0; n < NC; ++n) sk += S[rr][n] * c.kn[n], sq += S[rr][n] * c.qs[n];
    part[2 * rr] = sk;
    part[2 * rr + 1] = sq;
  }
  return warp_reduce_scatter32(part);
}

// The new checkpoint S + d k^T of the warp's rows on the lane's columns.
template <int NC>
__device__ void store_checkpoint(const ReplayParams& p, const RowVerdict& r, int64_t hv, const LaneCols<NC>& c,
                                 int64_t v_first, int nrows, const float (&S)[kRowsPerWarp][NC],
                                 const float (&d)[kRowsPerWarp]) {
  if (!c.active) return;
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    if (rr >= nrows) break;
    float x[NC];
#pragma unroll
    for (int n = 0; n < NC; ++n) x[n] = fmaf(d[rr], c.kn[n], S[rr][n]);
    store_cols(p.state.ptr, p.state.dtype, off4(p.state, r.slot, hv, v_first + rr, c.c0), p.state.stride[3], x);
  }
}

template <int NC, bool kMultiChunk>
__global__ void __launch_bounds__(kWarpsPerCta * 32, 4) replayssm_step_kernel(const ReplayParams p) {
  __shared__ __align__(16) float staged_deltas[kWarpsPerCta][kRecordChunk * kRowsPerWarp];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t n_vchunks = (p.V + kRowsPerCta - 1) / kRowsPerCta;
  int64_t id = blockIdx.x;
  const int64_t vc = id % n_vchunks;
  id /= n_vchunks;
  const int64_t hv = id % p.HV, row = id / p.HV;
  const int64_t v_first = vc * kRowsPerCta + warp * kRowsPerWarp;
  if (v_first >= p.V) return;  // V < 64: a warp past the last row (warp 0 always has rows)
  const int nrows = static_cast<int>(min64(kRowsPerWarp, p.V - v_first));
  const int64_t out_row = row * p.out.stride[0] + hv * p.out.stride[1];

  const RowVerdict r = judge_row(p, row);
  if (p.row_status.ptr != nullptr && hv == 0 && vc == 0 && threadIdx.x == 0)
    reinterpret_cast<int32_t*>(p.row_status.ptr)[row * p.row_status.stride[0]] = r.status;
  if (r.status != kRowOk) {
    if (lane < nrows) store_float(p.out.ptr, out_row + (v_first + lane) * p.out.stride[2], p.out.dtype, 0.0f);
    return;
  }
  const Token t = make_token<NC, kMultiChunk>(p, row, hv);
  const int64_t chunks = kMultiChunk ? p.K / (32 * NC) : 1;
  float* staged = staged_deltas[warp];

  float S[kRowsPerWarp][NC];
  LaneCols<NC> c;
  float dot = 0.0f;  // lane 2i: row i's S.k, lane 2i+1: its S.(q scale)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    c = lane_cols<NC>(p, t, ch);
    rebuild<NC>(p, t, r, c, v_first, nrows, staged, S);
    dot += row_dots<NC>(S, c);
  }

  const int my_row = lane >> 1;
  const float sq = __shfl_down_sync(kFullMask, dot, 1);
  float d = 0.0f;
  if ((lane & 1) == 0 && my_row < nrows) {
    const int64_t v = v_first + my_row;
    d = t.beta * (load_float(p.qkv.ptr, t.v0 + v, p.qkv.dtype) - dot);
    store_float(p.out.ptr, out_row + v * p.out.stride[2], p.out.dtype, sq + d * t.kq);
    if (!r.flush) store_float(p.d_cache.ptr, off4(p.d_cache, r.slot, hv, r.cursor, v), p.d_cache.dtype, d);
  }

  if (!r.flush) {
    if (vc != 0 || warp != 0) return;  // one warp per (row, head) writes the g record
    const bool writes_key = hv % (p.HV / p.H) == 0;  // one value head per query-head group
    for (int64_t ch = 0; ch < chunks; ++ch) {
      if (kMultiChunk) c = lane_cols<NC>(p, t, ch);  // else c is chunk 0 already
      if (!c.active) continue;
      store_cols(p.g_cache.ptr, kF32, off4(p.g_cache, r.slot, hv, r.cursor, c.c0), p.g_cache.stride[3], c.g);
      if (writes_key)
        store_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, t.h, r.cursor, c.c0), p.k_cache.stride[3], c.kn);
    }
    return;
  }

  float dr[kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) dr[rr] = __shfl_sync(kFullMask, d, 2 * rr);
  if constexpr (!kMultiChunk) {
    store_checkpoint<NC>(p, r, hv, c, v_first, nrows, S, dr);
  } else {
    for (int64_t ch = 0; ch < chunks; ++ch) {  // the chunks' S_dec were not kept: rebuild each again
      c = lane_cols<NC>(p, t, ch);
      rebuild<NC>(p, t, r, c, v_first, nrows, staged, S);
      store_checkpoint<NC>(p, r, hv, c, v_first, nrows, S, dr);
    }
  }
}

template <int NC, bool kMultiChunk>
cudaError_t launch(const ReplayParams& p, cudaStream_t stream) {
  const int64_t warps = min64(kWarpsPerCta, (p.V + kRowsPerWarp - 1) / kRowsPerWarp);
  replayssm_step_kernel<NC, kMultiChunk>
      <<<static_cast<unsigned>(replayssm_blocks(p)), static_cast<unsigned>(32 * warps), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

int64_t replayssm_blocks(const ReplayParams& p) { return p.B * p.HV * ((p.V + kRowsPerCta - 1) / kRowsPerCta); }

cudaError_t launch_replayssm(const ReplayParams& p, cudaStream_t stream) {
  if (replayssm_blocks(p) == 0) return cudaSuccess;  // HV = 0: no head, nothing to read or write
  if (p.K <= 32) return launch<1, false>(p, stream);
  if (p.K == 64) return launch<2, false>(p, stream);
  if (p.K == 128) return launch<4, false>(p, stream);
  return launch<4, true>(p, stream);
}

}  // namespace kda::cuda::detail
