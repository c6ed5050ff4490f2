// The ReplaySSM decode step for K > 128 (semantics.md). The K <= 128 kernels (every
// production shape; docs/kernel-design.md) share a CTA's per-head work through shared memory
// sized for 128 columns; this one walks K in 128-column chunks and keeps no block-wide state,
// so any K fits, at the cost of each warp doing its head's per-column work itself.
//
// Work unit: one WARP per (row, value head, 16 state rows); a CTA is 4 independent warps.
// No block barrier: each warp computes its own row verdict, norms, gates and ring sums, and
// its only shared memory is its own staging buffer for ring deltas. Lane l owns columns
// [4l, 4l + 4) of the current 128-column chunk of each of its 16 rows, in registers.
//
// Per warp:
//   1. verdict: padding / slot / cursor / duplicate slot (rejected: zeros to out, return);
//   2. token: norms of q and k over all of K, k.(q scale), beta, A;
//   3. per chunk: S = S0 diag(exp(total)) + sum_j d_j w_j^T with w_j = k_j exp(total -
//      prefix_j), d_j and w_j rounded to out's dtype, float32 FMA; decay by exp(g); partial
//      S.k and S.(q scale) of the 16 rows (one transposed warp reduction);
//   4. d, o -> out;
//   5. flush: each chunk rebuilt again and S + d k^T stored; append: d (and, from one warp
//      per (row, head), g and the key once per query-head group) at the cursor.
#include <cmath>

#include "kernels/lane_columns.cuh"
#include "kernels/register_rows.cuh"
#include "kernels/replayssm_device.cuh"
#include "kernels/warp_reduce.cuh"

namespace kda::cuda::detail {
namespace {

constexpr int kWarpsPerCta = 4;
constexpr int kRowsPerCta = kRowsPerWarp * kWarpsPerCta;
constexpr int kRecordChunk = 16;  // ring deltas staged in shared memory per pass

constexpr int NC = 4;  // columns per lane: a chunk is 128 columns

// Warp-uniform: every lane returns the same verdict.
template <bool kPlain>
__device__ RowVerdict judge_row(const ReplayParams& p, int64_t row) {
  RowVerdict r = row_values<kPlain>(p, row);
  if (r.slot >= 0 && __any_sync(kFullMask, slot_taken_elsewhere(p, row, r.slot, threadIdx.x & 31, 32)))
    r.status |= kRowDuplicateSlot;
  return r;
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
struct LaneCols {
  int64_t c0;
  bool active;
  float qs[NC], kn[NC], g[NC];  // q * scale, k (both normalized), gate
};

__device__ __forceinline__ int64_t lane_first_col(int64_t chunk) {
  return chunk * 32 * NC + (threadIdx.x & 31) * NC;
}

// Raw q and k of the lane's columns of chunk `chunk` (zeros past K).
__device__ bool load_qk(const ReplayParams& p, const Token& t, int64_t chunk, float (&q)[NC], float (&k)[NC]) {
  const int64_t c0 = lane_first_col(chunk);
#pragma unroll
  for (int n = 0; n < NC; ++n) q[n] = k[n] = 0.0f;
  if (c0 >= p.K) return false;
  load_cols(p.qkv.ptr, p.qkv.dtype, t.q0 + c0, 1, q);  // mixed_qkv's last dim has stride 1 (contract V2)
  load_cols(p.qkv.ptr, p.qkv.dtype, t.k0 + c0, 1, k);
  return true;
}

template <bool kPlain>
__device__ Token make_token(const ReplayParams& p, int64_t row, int64_t hv) {
  Token t;
  t.row = row;
  t.hv = hv;
  t.h = hv / (p.HV / p.H);
  const QkvOffsets o = qkv_offsets(p, row, hv, t.h);
  t.q0 = o.q0, t.k0 = o.k0, t.v0 = o.v0;
  const int64_t chunks = p.K / (32 * NC);
  t.q_norm = t.k_norm = 1.0f;
  if (p.l2norm) {
    float qq = 0, kk = 0;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      float q[NC], k[NC];
      load_qk(p, t, ch, q, k);
#pragma unroll
      for (int n = 0; n < NC; ++n) qq += q[n] * q[n], kk += k[n] * k[n];
    }
    t.q_norm = sqrtf(warp_sum(qq) + 1e-6f);
    t.k_norm = sqrtf(warp_sum(kk) + 1e-6f);
  }
  float kq = 0;
  for (int64_t ch = 0; ch < chunks; ++ch) {
    float q[NC], k[NC];
    load_qk(p, t, ch, q, k);
#pragma unroll
    for (int n = 0; n < NC; ++n) kq += (k[n] / t.k_norm) * (q[n] / t.q_norm * p.scale);
  }
  t.kq = warp_sum(kq);
  t.beta = head_beta<kPlain>(p, row, hv);
  t.A = head_A(p, hv);
  return t;
}

__device__ LaneCols lane_cols(const ReplayParams& p, const Token& t, int64_t chunk) {
  LaneCols c;
  c.c0 = lane_first_col(chunk);
  float q[NC], k[NC];
  c.active = load_qk(p, t, chunk, q, k);
#pragma unroll
  for (int n = 0; n < NC; ++n) {
    c.qs[n] = q[n] / t.q_norm * p.scale;
    c.kn[n] = k[n] / t.k_norm;
    c.g[n] = c.active ? gate(p, t.row, t.hv, c.c0 + n, t.A) : 0.0f;
  }
  return c;
}

// S <- the decayed state S_dec of the warp's rows [v_first, v_first + nrows) on the lane's
// columns: S0 diag(exp(total)) + sum_j d_j w_j^T, then diag(exp(g)). `staged` is the
// warp's kRecordChunk x kRowsPerWarp buffer. kCircular: record j read at ring.phys(j), and
// without `decay` the state before the token (no diag(exp(g))), a history checkpoint's.
template <bool kCircular = false>
__device__ void rebuild(const ReplayParams& p, const Token& t, const RowVerdict& r, const LaneCols& c,
                        int64_t v_first, int nrows, float* staged, float (&S)[kRowsPerWarp][NC],
                        const CircularRow& ring = {}, bool decay = true) {
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
    if (c.active) load_cols(p.g_cache.ptr, kF32, off4(p.g_cache, r.slot, t.hv, ring_slot<kCircular>(ring, j, p.L), c.c0), gs, g);
#pragma unroll
    for (int n = 0; n < NC; ++n) total[n] += g[n];
  }
  if (r.cursor > 0) {
    float e[NC];
#pragma unroll
    for (int n = 0; n < NC; ++n) e[n] = expf(total[n]);
    scale_columns(S, e);
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
        d = round_to(od, load_float(p.d_cache.ptr, off4(p.d_cache, r.slot, t.hv, ring_slot<kCircular>(ring, jc + j, p.L), v_first + rr), p.d_cache.dtype));
      staged[idx] = d;
    }
    __syncwarp();
    for (int j = 0; j < jn; ++j) {
      float g[NC] = {}, k[NC] = {}, w[NC];
      if (c.active) {
        load_cols(p.g_cache.ptr, kF32, off4(p.g_cache, r.slot, t.hv, ring_slot<kCircular>(ring, jc + j, p.L), c.c0), gs, g);
        load_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, t.h, ring_slot<kCircular>(ring, jc + j, p.L), c.c0), ks, k);
      }
#pragma unroll
      for (int n = 0; n < NC; ++n) {
        prefix[n] += g[n];
        w[n] = round_to(od, k[n] * expf(total[n] - prefix[n]));
      }
      add_record(S, staged + j * kRowsPerWarp, w);
    }
  }
  if (kCircular && !decay) return;
  float eg[NC];
#pragma unroll
  for (int n = 0; n < NC; ++n) eg[n] = expf(c.g[n]);
  scale_columns(S, eg);
}

// The new checkpoint S + d k^T of the warp's rows on the lane's columns.
__device__ void store_checkpoint(const ReplayParams& p, const RowVerdict& r, int64_t hv, const LaneCols& c,
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

// kPlain: the plain packed decode (ReplayParams::plain). kCircular: a circular ring
// (ReplayParams::circular): records at ring slots (cache_base + j) mod L, the record appended
// at the cursor's slot; a history checkpoint computes out and d as a flush does, stores the
// state rebuilt without the token's decay, and appends the record.
template <bool kPlain, bool kCircular = false>
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

  RowVerdict r = judge_row<kPlain>(p, row);
  CircularRow ring;
  if constexpr (kCircular) {
    ring = circular_row(p, row, r);
    if (ring.history) r.flush = false;  // its record is appended; the checkpoint is stored apart below
  }
  if (p.row_status.ptr != nullptr && hv == 0 && vc == 0 && threadIdx.x == 0)
    reinterpret_cast<int32_t*>(p.row_status.ptr)[row * p.row_status.stride[0]] = r.status;
  if (r.status != kRowOk) {
    if (lane < nrows) store_float(p.out.ptr, out_row + (v_first + lane) * p.out.stride[2], p.out.dtype, 0.0f);
    return;
  }
  const Token t = make_token<kPlain>(p, row, hv);
  const int64_t chunks = p.K / (32 * NC);
  float* staged = staged_deltas[warp];

  float S[kRowsPerWarp][NC];
  LaneCols c;
  float dot = 0.0f;  // lane 2i: row i's S.k, lane 2i+1: its S.(q scale)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    c = lane_cols(p, t, ch);
    rebuild<kCircular>(p, t, r, c, v_first, nrows, staged, S, ring);
    dot += row_dots(S, c.kn, c.qs);
  }

  const int my_row = lane >> 1;
  const float sq = __shfl_down_sync(kFullMask, dot, 1);
  float d = 0.0f;
  if ((lane & 1) == 0 && my_row < nrows) {
    const int64_t v = v_first + my_row;
    d = t.beta * (load_float(p.qkv.ptr, t.v0 + v, p.qkv.dtype) - dot);
    store_float(p.out.ptr, out_row + v * p.out.stride[2], p.out.dtype, sq + d * t.kq);
    if (!r.flush)
      store_float(p.d_cache.ptr, off4(p.d_cache, r.slot, hv, ring_slot<kCircular>(ring, r.cursor, p.L), v),
                  p.d_cache.dtype, d);
  }

  if constexpr (kCircular) {
    if (ring.history) {  // the checkpoint before the token: each chunk rebuilt again, undecayed
      for (int64_t ch = 0; ch < chunks; ++ch) {
        c = lane_cols(p, t, ch);
        rebuild<kCircular>(p, t, r, c, v_first, nrows, staged, S, ring, false);
        if (!c.active) continue;
#pragma unroll
        for (int rr = 0; rr < kRowsPerWarp; ++rr) {
          if (rr >= nrows) break;
          store_cols(p.state.ptr, p.state.dtype, off4(p.state, r.slot, hv, v_first + rr, c.c0), p.state.stride[3], S[rr]);
        }
      }
    }
  }
  if (!r.flush) {
    if (vc != 0 || warp != 0) return;  // one warp per (row, head) writes the g record
    const bool writes_key = hv % (p.HV / p.H) == 0;  // one value head per query-head group
    for (int64_t ch = 0; ch < chunks; ++ch) {
      c = lane_cols(p, t, ch);
      if (!c.active) continue;
      const int64_t at = ring_slot<kCircular>(ring, r.cursor, p.L);  // the appended record's slot
      store_gate_record(p, r.slot, hv, at, c.c0, c.g);
      if (writes_key)
        store_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, t.h, at, c.c0), p.k_cache.stride[3], c.kn);
    }
    return;
  }

  float dr[kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) dr[rr] = __shfl_sync(kFullMask, d, 2 * rr);
  for (int64_t ch = 0; ch < chunks; ++ch) {  // the chunks' S_dec were not kept: rebuild each again
    c = lane_cols(p, t, ch);
    rebuild<kCircular>(p, t, r, c, v_first, nrows, staged, S, ring);
    store_checkpoint(p, r, hv, c, v_first, nrows, S, dr);
  }
}

}  // namespace

int64_t replayssm_wide_blocks(const ReplayParams& p) {
  return p.B * p.HV * ((p.V + kRowsPerCta - 1) / kRowsPerCta);
}

cudaError_t launch_replayssm_wide(const ReplayParams& p, cudaStream_t stream) {
  const int64_t warps = min64(kWarpsPerCta, (p.V + kRowsPerWarp - 1) / kRowsPerWarp);
  const auto kernel = p.plain ? replayssm_step_kernel<true> : replayssm_step_kernel<false>;
  kernel<<<static_cast<unsigned>(replayssm_wide_blocks(p)), static_cast<unsigned>(32 * warps), 0, stream>>>(p);
  return cudaGetLastError();
}

cudaError_t launch_replayssm_wide_circular(const ReplayParams& p, cudaStream_t stream) {
  const int64_t warps = min64(kWarpsPerCta, (p.V + kRowsPerWarp - 1) / kRowsPerWarp);
  replayssm_step_kernel<false, true>
      <<<static_cast<unsigned>(replayssm_wide_blocks(p)), static_cast<unsigned>(32 * warps), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace kda::cuda::detail
