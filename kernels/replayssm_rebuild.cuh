// The ring rebuild of one state tile (semantics.md "The ReplaySSM step"), for rows
// [vbase, vbase+bv) and columns [c0, c0+kw) of the row's checkpoint:
//   S_dec = (S0 diag(exp(total)) + sum_j d_j w_j^T) diag(exp(g)),  w_j = k_j exp(total - prefix_j)
// The checkpoint tile and the ring chunk are copied in with cp.async, all in flight at once;
// the column sums run one thread per column (cols <= threads), sequential in j as in the
// reference, so total and every prefix round exactly as there.
#pragma once
#include "kernels/async_copy.cuh"
#include "kernels/dtype_convert.cuh"
#include "kernels/rank_update.cuh"
#include "kernels/replayssm_smem.cuh"
#include "kernels/replayssm_token.cuh"

namespace kda::cuda::detail {

struct TileRef {
  int64_t slot, hv, h, vbase, c0;
  int32_t cursor;
  int bv, kw;
};

__device__ __forceinline__ const char* at4(const TensorRef& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  const int64_t off = i0 * t.stride[0] + i1 * t.stride[1] + i2 * t.stride[2] + i3 * t.stride[3];
  return t.ptr + off * dtype_bytes(t.dtype);
}

// Raw checkpoint tile -> S: a float32 state at each row's start, a 16-bit one in its upper half.
template <typename TS>
__device__ __forceinline__ void issue_state_copy(const ReplayParams& p, const TileRef& x, const SmemTile& m) {
  char* dst = reinterpret_cast<char*>(m.S) + (sizeof(TS) == 4 ? 0 : 2 * m.cols);
  stage_block(Block2D{at4(p.state, x.slot, x.hv, x.vbase, x.c0), p.state.stride[2], p.state.stride[3], x.bv, x.kw,
                      static_cast<int>(sizeof(TS)), dst, m.s_stride * 4});
}

// Records [jc, jc + jt) of the rings (those before the cursor) -> G, KR, DR.
__device__ __forceinline__ void issue_chunk_copy(const ReplayParams& p, const TileRef& x, const SmemTile& m, int jc) {
  const int jn = min(m.jt, x.cursor - jc);
  if (jn <= 0) return;
  const int esk = dtype_bytes(p.k_cache.dtype), esd = dtype_bytes(p.d_cache.dtype);
  stage_block(Block2D{at4(p.g_cache, x.slot, x.hv, jc, x.c0), p.g_cache.stride[2], p.g_cache.stride[3], jn, x.kw, 4,
                      reinterpret_cast<char*>(m.G), m.cols * 4});
  stage_block(Block2D{at4(p.k_cache, x.slot, x.h, jc, x.c0), p.k_cache.stride[2], p.k_cache.stride[3], jn, x.kw, esk,
                      m.KR, m.cols * esk});
  stage_block(Block2D{at4(p.d_cache, x.slot, x.hv, jc, x.vbase), p.d_cache.stride[2], p.d_cache.stride[3], jn, x.bv,
                      esd, m.DR, m.rows * esd});
}

// Sequential float32 sum of column `col`'s g over records [0, cursor), 16 loads in flight
// (32 made ptxas spill under the 96-register bound).
__device__ __forceinline__ float ring_total(const ReplayParams& p, const TileRef& x, int64_t col) {
  const float* g = reinterpret_cast<const float*>(at4(p.g_cache, x.slot, x.hv, 0, col));
  const int64_t js = p.g_cache.stride[2];
  float total = 0.0f;
  for (int j0 = 0; j0 < x.cursor; j0 += 16) {
    float r[16];
#pragma unroll
    for (int u = 0; u < 16; ++u) r[u] = j0 + u < x.cursor ? g[(j0 + u) * js] : 0.0f;
#pragma unroll
    for (int u = 0; u < 16; ++u)
      if (j0 + u < x.cursor) total += r[u];
  }
  return total;
}

// This thread's share of the tile: row v = tid / 4, columns [c, c + n) with n = cols / 4
// (even, 2..32). The tile's per-element work (S0 exp(total), decay, S.k, S.q, the new
// checkpoint) runs on these registers in one pass: v2 made four shared-memory passes with
// per-element index arithmetic, ~22,000 warp instructions per CTA (ncu), issue-bound.
constexpr int kSegMax = 32;
struct Seg {
  int v, q, c, n;
};

__device__ __forceinline__ Seg my_seg(const SmemTile& m) {
  Seg g;
  g.v = threadIdx.x / 4;
  g.q = threadIdx.x % 4;
  g.n = m.cols / 4;
  g.c = g.q * g.n;
  return g;
}

__device__ __forceinline__ float2 ld2(const float* a, int e) { return *reinterpret_cast<const float2*>(a + e); }

// Two raw elements of the state dtype at column c (even) of a raw row.
template <typename TS>
__device__ __forceinline__ float2 raw_pair(const char* row, int c) {
  if constexpr (sizeof(TS) == 4) {
    return *reinterpret_cast<const float2*>(row + 4 * c);
  } else {
    const TS* t = reinterpret_cast<const TS*>(row + 2 * c);
    return make_float2(to_f32(t[0]), to_f32(t[1]));
  }
}

// Fills s with this thread's S_dec for the tile. With `prefetched`, the caller has already
// issued the copies of the checkpoint tile and the first ring chunk.
template <typename TS>
__device__ __forceinline__ void rebuild_tile(const ReplayParams& p, const TileRef& x, const SmemTile& m, bool prefetched,
                                             const Seg& g, float (&s)[kSegMax]) {
  const int c = threadIdx.x;  // this thread's column for the column sums (cols <= threads)
  const bool mine = c < x.kw;
  if (!prefetched) {
    issue_state_copy<TS>(p, x, m);
    issue_chunk_copy(p, x, m, 0);
  }
  const bool one_chunk = x.cursor <= m.jt;
  float total = 0.0f;
  if (!one_chunk && mine) total = ring_total(p, x, x.c0 + c);  // while the copies fly
  cp_async_wait_all();
  __syncthreads();
  if (one_chunk && mine)
    for (int j = 0; j < x.cursor; ++j) total += m.G[j * m.cols + c];
  if (c < m.cols) m.et[c] = expf(total);
  __syncthreads();
  // S0 exp(total) in registers (zero outside the tile).
  const bool row_in = g.v < x.bv;
  const char* raw = reinterpret_cast<const char*>(m.S + g.v * m.s_stride) + (sizeof(TS) == 4 ? 0 : 2 * m.cols);
#pragma unroll
  for (int u = 0; u < kSegMax / 2; ++u) {
    s[2 * u] = s[2 * u + 1] = 0.0f;
    const int cc = g.c + 2 * u;
    if (2 * u < g.n && row_in) {
      const float2 r = raw_pair<TS>(raw, cc), e = ld2(m.et, cc);
      if (cc < x.kw) s[2 * u] = r.x * e.x;
      if (cc + 1 < x.kw) s[2 * u + 1] = r.y * e.y;
    }
  }
  if (x.cursor > 0) {  // the rank update runs on tensor cores (or FMA) over the smem tile
    __syncthreads();   // every raw element is read before any row is overwritten
    if (g.v < m.rows) {
      float* row = m.S + g.v * m.s_stride;
#pragma unroll
      for (int u = 0; u < kSegMax / 2; ++u)
        if (2 * u < g.n) *reinterpret_cast<float2*>(row + g.c + 2 * u) = make_float2(s[2 * u], s[2 * u + 1]);
    }
    const int32_t od = p.out.dtype;
    float prefix = 0.0f;
    for (int jc = 0; jc < x.cursor; jc += m.jt) {
      if (jc > 0) {
        issue_chunk_copy(p, x, m, jc);
        cp_async_wait_all();
      }
      __syncthreads();  // the chunk has landed; the tile's rows are stored
      const int jn = min(m.jt, x.cursor - jc), jp = kRingChunk;
      for (int i = threadIdx.x; i < jp * m.rows; i += blockDim.x) {
        const int j = i / m.rows, v = i - j * m.rows;
        m.D[i] = j < jn && v < x.bv ? round_to_sel(od, smem_to_f32(m.DR, i, p.d_cache.dtype)) : 0.0f;
      }
      if (c < m.cols) {  // decayed keys, in place over the g records; the chunk read first
        float gr[kRingChunk], kr[kRingChunk];
#pragma unroll
        for (int j = 0; j < kRingChunk; ++j) {
          gr[j] = j < jn && mine ? m.G[j * m.cols + c] : 0.0f;
          kr[j] = j < jn && mine ? smem_to_f32(m.KR, j * m.cols + c, p.k_cache.dtype) : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < kRingChunk; ++j) {
          float w = 0.0f;
          if (j < jn && mine) {
            prefix += gr[j];
            w = round_to_sel(od, kr[j] * expf(total - prefix));
          }
          m.G[j * m.cols + c] = w;
        }
      }
      __syncthreads();
      rank_update(RankTile{m.S, m.D, m.G, m.rows, m.cols, m.s_stride, jp}, od);
      __syncthreads();
    }
    const float* row = m.S + g.v * m.s_stride;  // every s rewritten: s is dead during the chunks
#pragma unroll
    for (int u = 0; u < kSegMax / 2; ++u) {
      const float2 r = 2 * u < g.n && row_in ? ld2(row, g.c + 2 * u) : make_float2(0.0f, 0.0f);
      s[2 * u] = r.x;
      s[2 * u + 1] = r.y;
    }
  }
  // Decay by the current gate (columns past kw hold zeros and stay so).
#pragma unroll
  for (int u = 0; u < kSegMax / 2; ++u)
    if (2 * u < g.n && row_in) {
      const int cc = g.c + 2 * u;
      if (cc < x.kw) s[2 * u] *= m.egc[x.c0 + cc];
      if (cc + 1 < x.kw) s[2 * u + 1] *= m.egc[x.c0 + cc + 1];
    }
}

}  // namespace kda::cuda::detail
