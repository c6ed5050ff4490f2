// The ReplaySSM decode step on the GPU (semantics.md). One CTA per (row, value head, tile of
// BV state rows). Per CTA:
//   1. judge the row (padding / slot / cursor / duplicate slot) from the index tensors;
//      a padding or rejected row writes zeros to its out tile and nothing else;
//   2. row scalars: L2 norms of q and k, k.(q*scale), beta, A;
//   3. per K tile: S0 tile -> shared memory; rebuild from the ring (prefix sums of g per
//      column, rank update on tensor cores or FMA); decay by the current gate; partial
//      S_dec.k and S_dec.(q*scale) per state row;
//   4. d = beta (v - S_dec k), o = S_dec (q*scale) + d (k.(q*scale)) -> out;
//   5. flush: checkpoint = S_dec + d k^T (rebuilding the K tiles again when K > KT);
//      append: the ring records at the cursor.
#include <cmath>

#include "kernels/dtype_convert.cuh"
#include "kernels/rank_update.cuh"
#include "kernels/row_status.hpp"
#include "kernels/replayssm_params.hpp"
#include "kernels/replayssm_smem.cuh"

namespace kda::cuda::detail {
namespace {

struct RowVerdict {
  int64_t slot = -1;
  int32_t cursor = 0;
  int32_t status = kRowOk;
  bool flush = false;
};

// Block-uniform: every thread returns the same verdict (the duplicate scan is spread over
// the block and combined with __syncthreads_or, which every thread reaches).
__device__ RowVerdict judge_row(const ReplayParams& p, int64_t row) {
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
  for (int64_t other = threadIdx.x; other < p.B; other += blockDim.x)
    dup |= other != row && load_int(p.indices, other) == r.slot;
  if (__syncthreads_or(dup)) r.status |= kRowDuplicateSlot;
  const bool forced =
      p.force_flush.ptr != nullptr &&
      reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]] != 0;
  r.flush = forced || r.cursor == p.L - 1;
  return r;
}

__device__ float block_sum(float x, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < nwarps; ++w) total += scratch[w];
  return total;
}

__host__ __device__ __forceinline__ int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// Everything about the current token that the tiles need.
struct Token {
  int64_t q0, k0, v0;   // element offsets of q, k (head h) and v (head hv) of the row in mixed_qkv
  float q_norm, k_norm; // divisors (1 without L2 norm)
  float kq;             // k . (q * scale)
  float beta, A;
  int64_t row, hv, h;
};

__device__ __forceinline__ float load_q(const ReplayParams& p, const Token& t, int64_t c) {
  return load_float(p.qkv.ptr, t.q0 + c, p.qkv.dtype);
}
__device__ __forceinline__ float load_k(const ReplayParams& p, const Token& t, int64_t c) {
  return load_float(p.qkv.ptr, t.k0 + c, p.qkv.dtype);
}

// g[c] of the current token (semantics.md: both gates).
__device__ float gate(const ReplayParams& p, const Token& t, int64_t c) {
  const float x = load_float(p.a.ptr, t.row * p.a.stride[0] + t.hv * p.a.stride[1] + c * p.a.stride[2], p.a.dtype) +
                  load_float(p.dt_bias.ptr, t.hv * p.dt_bias.stride[0] + c * p.dt_bias.stride[1], p.dt_bias.dtype);
  if (p.has_lower_bound) return p.lower_bound * sigmoidf(t.A * x);
  const float softplus = x <= 20.0f ? log1pf(expf(x)) : x;
  return -t.A * softplus;
}

__device__ Token make_token(const ReplayParams& p, int64_t row, int64_t hv, float* scratch) {
  Token t;
  t.row = row;
  t.hv = hv;
  t.h = hv / (p.HV / p.H);
  const int64_t base = row * p.qkv.stride[0];  // the last dim has stride 1 (contract V2)
  t.q0 = base + t.h * p.K;
  t.k0 = base + p.H * p.K + t.h * p.K;
  t.v0 = base + 2 * p.H * p.K + hv * p.V;
  t.q_norm = t.k_norm = 1.0f;
  if (p.l2norm) {
    float qq = 0, kk = 0;
    for (int64_t c = threadIdx.x; c < p.K; c += blockDim.x) {
      const float q = load_q(p, t, c), k = load_k(p, t, c);
      qq += q * q;
      kk += k * k;
    }
    t.q_norm = sqrtf(block_sum(qq, scratch) + 1e-6f);
    t.k_norm = sqrtf(block_sum(kk, scratch) + 1e-6f);
  }
  float kq = 0;
  for (int64_t c = threadIdx.x; c < p.K; c += blockDim.x)
    kq += (load_k(p, t, c) / t.k_norm) * (load_q(p, t, c) / t.q_norm * p.scale);
  t.kq = block_sum(kq, scratch);
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

__device__ __forceinline__ int64_t off4(const TensorRef& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return i0 * t.stride[0] + i1 * t.stride[1] + i2 * t.stride[2] + i3 * t.stride[3];
}

// Fills smem S with S_dec = (S0 diag(exp(total)) + sum_j d_j w_j^T) diag(exp(g)) for state
// rows [v0, v0+bv) and columns [c0, c0+kw), and the column vectors qs, kn of the tile.
__device__ void rebuild_tile(const ReplayParams& p, const Token& t, const RowVerdict& r, const SmemTile& m,
                             int64_t vbase, int bv, int64_t c0, int kw) {
  const int tid = threadIdx.x, nth = blockDim.x;
  for (int c = tid; c < m.cols; c += nth) {
    const bool in = c < kw;
    m.qs[c] = in ? load_q(p, t, c0 + c) / t.q_norm * p.scale : 0.0f;
    m.kn[c] = in ? load_k(p, t, c0 + c) / t.k_norm : 0.0f;
    m.egc[c] = in ? expf(gate(p, t, c0 + c)) : 0.0f;
    float total = 0;
    for (int j = 0; in && j < r.cursor; ++j) total += reinterpret_cast<const float*>(p.g_cache.ptr)[off4(p.g_cache, r.slot, t.hv, j, c0 + c)];
    m.tot[c] = total;
    m.pre[c] = 0.0f;
  }
  __syncthreads();
  for (int i = tid; i < m.rows * m.cols; i += nth) {
    const int v = i / m.cols, c = i % m.cols;
    float s = 0.0f;
    if (v < bv && c < kw) s = load_float(p.state.ptr, off4(p.state, r.slot, t.hv, vbase + v, c0 + c), p.state.dtype) * expf(m.tot[c]);
    m.S[v * m.s_stride + c] = s;
  }
  const int32_t od = p.out.dtype;
  for (int jc = 0; jc < r.cursor; jc += m.jt) {
    const int jn = min(m.jt, r.cursor - jc), jp = (jn + 15) / 16 * 16;
    for (int c = tid; c < m.cols; c += nth) {  // decayed keys: one column per thread, j in order
      float prefix = m.pre[c];
      for (int j = 0; j < jp; ++j) {
        float w = 0.0f;
        if (j < jn && c < kw) {
          prefix += reinterpret_cast<const float*>(p.g_cache.ptr)[off4(p.g_cache, r.slot, t.hv, jc + j, c0 + c)];
          const float k = load_float(p.k_cache.ptr, off4(p.k_cache, r.slot, t.h, jc + j, c0 + c), p.k_cache.dtype);
          w = round_to(od, k * expf(m.tot[c] - prefix));
        }
        m.W[j * m.cols + c] = w;
      }
      m.pre[c] = prefix;
    }
    for (int i = tid; i < jp * m.rows; i += nth) {
      const int j = i / m.rows, v = i % m.rows;
      float d = 0.0f;
      if (j < jn && v < bv) d = round_to(od, load_float(p.d_cache.ptr, off4(p.d_cache, r.slot, t.hv, jc + j, vbase + v), p.d_cache.dtype));
      m.D[j * m.rows + v] = d;
    }
    __syncthreads();
    rank_update(RankTile{m.S, m.D, m.W, m.rows, m.cols, m.s_stride, jp}, od);
    __syncthreads();
  }
  __syncthreads();
  for (int i = tid; i < m.rows * m.cols; i += nth) {
    const int v = i / m.cols, c = i % m.cols;
    m.S[v * m.s_stride + c] *= m.egc[c];
  }
  __syncthreads();
}

__global__ void replayssm_step_kernel(const ReplayParams p, const LaunchShape shape) {
  extern __shared__ float smem_raw[];
  const int64_t n_vtiles = p.V / min64(shape.BV, p.V);
  int64_t id = blockIdx.x;
  const int64_t vt = id % n_vtiles;
  id /= n_vtiles;
  const int64_t hv = id % p.HV, row = id / p.HV;
  const SmemTile m = carve_smem(smem_raw, p, shape);
  const int bv = static_cast<int>(min64(shape.BV, p.V));
  const int64_t vbase = vt * bv;
  const int tid = threadIdx.x, nth = blockDim.x;
  const int64_t out_row = row * p.out.stride[0] + hv * p.out.stride[1];

  const RowVerdict r = judge_row(p, row);
  if (p.row_status.ptr != nullptr && hv == 0 && vt == 0 && tid == 0)
    reinterpret_cast<int32_t*>(p.row_status.ptr)[row * p.row_status.stride[0]] = r.status;
  if (r.status != kRowOk) {
    for (int v = tid; v < bv; v += nth) store_float(p.out.ptr, out_row + (vbase + v) * p.out.stride[2], p.out.dtype, 0.0f);
    return;
  }
  const Token t = make_token(p, row, hv, m.scratch);

  const int kw = static_cast<int>(min64(shape.KT, p.K));
  const int64_t n_ktiles = p.K / kw;
  for (int v = tid; v < m.rows; v += nth) m.sk[v] = m.sq[v] = 0.0f;
  for (int64_t kt = 0; kt < n_ktiles; ++kt) {
    rebuild_tile(p, t, r, m, vbase, bv, kt * kw, kw);
    const int warp = tid / 32, lane = tid % 32;
    for (int v = warp; v < bv; v += nth / 32) {  // one warp per state row: S_dec.k, S_dec.q
      float sk = 0, sq = 0;
      for (int c = lane; c < kw; c += 32) {
        const float s = m.S[v * m.s_stride + c];
        sk += s * m.kn[c];
        sq += s * m.qs[c];
      }
      for (int o = 16; o > 0; o >>= 1) {
        sk += __shfl_xor_sync(0xffffffffu, sk, o);
        sq += __shfl_xor_sync(0xffffffffu, sq, o);
      }
      if (lane == 0) {
        m.sk[v] += sk;
        m.sq[v] += sq;
      }
    }
    __syncthreads();
  }

  for (int v = tid; v < bv; v += nth) {
    const float vv = load_float(p.qkv.ptr, t.v0 + vbase + v, p.qkv.dtype);
    const float d = t.beta * (vv - m.sk[v]);
    store_float(p.out.ptr, out_row + (vbase + v) * p.out.stride[2], p.out.dtype, m.sq[v] + d * t.kq);
    m.dv[v] = d;
    if (!r.flush) store_float(p.d_cache.ptr, off4(p.d_cache, r.slot, hv, r.cursor, vbase + v), p.d_cache.dtype, d);
  }
  if (!r.flush) {
    if (vt != 0) return;
    const bool writes_key = hv % (p.HV / p.H) == 0;  // one value head per query-head group
    for (int64_t c = tid; c < p.K; c += nth) {
      reinterpret_cast<float*>(p.g_cache.ptr)[off4(p.g_cache, r.slot, hv, r.cursor, c)] = gate(p, t, c);
      if (writes_key) store_float(p.k_cache.ptr, off4(p.k_cache, r.slot, t.h, r.cursor, c), p.k_cache.dtype, load_k(p, t, c) / t.k_norm);
    }
    return;
  }
  __syncthreads();
  for (int64_t kt = 0; kt < n_ktiles; ++kt) {
    if (n_ktiles > 1) rebuild_tile(p, t, r, m, vbase, bv, kt * kw, kw);  // else S_dec is still in smem
    for (int i = tid; i < bv * kw; i += nth) {
      const int v = i / kw, c = i % kw;
      const float s = m.S[v * m.s_stride + c] + m.dv[v] * m.kn[c];
      store_float(p.state.ptr, off4(p.state, r.slot, hv, vbase + v, kt * kw + c), p.state.dtype, s);
    }
    __syncthreads();
  }
}

}  // namespace

LaunchShape default_launch_shape(const ReplayParams& p) {
  LaunchShape s;
  s.BV = 32;
  s.KT = 128;
  s.JT = 32;
  s.threads = 128;
  return s;
}

std::size_t shared_bytes(const ReplayParams& p, const LaunchShape& s) { return smem_floats(p, s) * sizeof(float); }

cudaError_t launch_replayssm(const ReplayParams& p, const LaunchShape& s, cudaStream_t stream) {
  const int64_t bv = p.V < s.BV ? p.V : s.BV;
  const int64_t blocks = p.B * p.HV * (p.V / bv);
  replayssm_step_kernel<<<static_cast<unsigned>(blocks), s.threads, shared_bytes(p, s), stream>>>(p, s);
  return cudaGetLastError();
}

}  // namespace kda::cuda::detail
