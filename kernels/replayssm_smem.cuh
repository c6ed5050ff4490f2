// Shared-memory layout of one CTA of the decode kernel (all float32):
//   S   rows x s_stride   the state tile being rebuilt (S0 -> S -> S_dec)
//   W   jt x cols         decayed ring keys of one chunk of records, rounded to out's dtype
//   D   jt x rows         ring deltas of the chunk, rounded to out's dtype
//   qs, kn, egc, tot, pre (cols each): q*scale, k, exp(g), sum of ring gates, running prefix
//   sk, sq, dv (rows each): S_dec.k, S_dec.(q*scale), the new delta d
//   scratch (32): block reductions
// rows >= 16 and cols >= 8 so the tensor-core tiles fit; padding entries are zero.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/replayssm_params.hpp"

namespace kda::cuda::detail {

struct SmemGeometry {
  int rows, cols, s_stride, jt;
};

__host__ __device__ inline SmemGeometry smem_geometry(const ReplayParams& p, const LaunchShape& s) {
  SmemGeometry g;
  const int64_t bv = p.V < s.BV ? p.V : s.BV;
  const int64_t kt = p.K < s.KT ? p.K : s.KT;
  g.rows = bv < 16 ? 16 : static_cast<int>(bv);
  g.cols = kt < 8 ? 8 : static_cast<int>(kt);
  g.s_stride = g.cols + 8;  // breaks the bank pattern of the tensor-core fragment accesses
  g.jt = s.JT;
  return g;
}

__host__ __device__ inline std::size_t smem_floats(const ReplayParams& p, const LaunchShape& s) {
  const SmemGeometry g = smem_geometry(p, s);
  return static_cast<std::size_t>(g.rows) * g.s_stride + static_cast<std::size_t>(g.jt) * (g.cols + g.rows) +
         5u * g.cols + 3u * g.rows + 32u;
}

struct SmemTile : SmemGeometry {
  float *S, *W, *D, *qs, *kn, *egc, *tot, *pre, *sk, *sq, *dv, *scratch;
};

__device__ inline SmemTile carve_smem(float* base, const ReplayParams& p, const LaunchShape& s) {
  SmemTile m;
  static_cast<SmemGeometry&>(m) = smem_geometry(p, s);
  float* at = base;
  auto take = [&at](std::size_t n) { float* r = at; at += n; return r; };
  m.S = take(static_cast<std::size_t>(m.rows) * m.s_stride);
  m.W = take(static_cast<std::size_t>(m.jt) * m.cols);
  m.D = take(static_cast<std::size_t>(m.jt) * m.rows);
  m.qs = take(m.cols);
  m.kn = take(m.cols);
  m.egc = take(m.cols);
  m.tot = take(m.cols);
  m.pre = take(m.cols);
  m.sk = take(m.rows);
  m.sq = take(m.rows);
  m.dv = take(m.rows);
  m.scratch = take(32);
  return m;
}

}  // namespace kda::cuda::detail
