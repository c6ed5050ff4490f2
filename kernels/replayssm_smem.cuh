// Shared-memory layout of one CTA of the decode kernel (16-byte aligned sections):
//   S   rows x s_stride f32   the state tile (S0 lands here raw by cp.async: a float32 state
//                             at the row start, a 16-bit state in the row's upper half; then
//                             converted in place to S0 exp(total) -> S -> S_dec)
//   G   jt x cols f32         g records of one ring chunk; overwritten in place by W, the
//                             decayed keys rounded to out's dtype (same thread, same index)
//   KR  jt x cols raw         k records of the chunk in k_cache's dtype
//   DR  jt x rows raw         d records of the chunk in d_cache's dtype
//   D   jt x rows f32         d records rounded to out's dtype
//   qs, kn, gc, egc (kvec)    q*scale, normalized k, g and exp(g) of the token, whole K
//   et (cols)                 exp(sum of the ring's g) per tile column
//   sk, sq, dv, vv (rows)     S_dec.k, S_dec.(q*scale), the new delta d, the token's v
//   scratch (32)              block reductions
// rows >= 16 and cols >= 8 so the tensor-core tiles fit; padding entries are zero.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/replayssm_params.hpp"

namespace kda::cuda::detail {

__host__ __device__ inline int dtype_bytes(int32_t dt) { return dt == kF32 ? 4 : 2; }
__host__ __device__ inline std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }

struct SmemGeometry {
  int rows, cols, s_stride, jt, kvec;
  std::size_t kr_bytes, dr_bytes;
};

__host__ __device__ inline SmemGeometry smem_geometry(const ReplayParams& p, const LaunchShape& s) {
  SmemGeometry g;
  const int64_t bv = p.V < s.BV ? p.V : s.BV;
  const int64_t kt = p.K < s.KT ? p.K : s.KT;
  g.rows = bv < 16 ? 16 : static_cast<int>(bv);
  g.cols = kt < 8 ? 8 : static_cast<int>(kt);
  g.s_stride = g.cols + 8;  // breaks the bank pattern of the tensor-core fragment accesses
  g.jt = kRingChunk;
  g.kvec = static_cast<int>((p.K + 3) / 4 * 4);
  g.kr_bytes = round16(static_cast<std::size_t>(g.jt) * g.cols * dtype_bytes(p.k_cache.dtype));
  g.dr_bytes = round16(static_cast<std::size_t>(g.jt) * g.rows * dtype_bytes(p.d_cache.dtype));
  return g;
}

__host__ __device__ inline std::size_t smem_bytes(const ReplayParams& p, const LaunchShape& s) {
  const SmemGeometry g = smem_geometry(p, s);
  const std::size_t floats = static_cast<std::size_t>(g.rows) * g.s_stride + static_cast<std::size_t>(g.jt) * g.cols +
                             static_cast<std::size_t>(g.jt) * g.rows + 4u * g.kvec + g.cols + 4u * g.rows + 32u;
  return floats * sizeof(float) + g.kr_bytes + g.dr_bytes;
}

struct SmemTile : SmemGeometry {
  float *S, *G, *D, *qs, *kn, *gc, *egc, *et, *sk, *sq, *dv, *vv, *scratch;
  char *KR, *DR;
};

__device__ inline SmemTile carve_smem(char* base, const ReplayParams& p, const LaunchShape& s) {
  SmemTile m;
  static_cast<SmemGeometry&>(m) = smem_geometry(p, s);
  char* at = base;
  auto take = [&at](std::size_t bytes) { char* r = at; at += bytes; return r; };
  auto floats = [&take](std::size_t n) { return reinterpret_cast<float*>(take(n * sizeof(float))); };
  m.S = floats(static_cast<std::size_t>(m.rows) * m.s_stride);
  m.G = floats(static_cast<std::size_t>(m.jt) * m.cols);
  m.D = floats(static_cast<std::size_t>(m.jt) * m.rows);
  m.KR = take(m.kr_bytes);
  m.DR = take(m.dr_bytes);
  m.qs = floats(m.kvec);
  m.kn = floats(m.kvec);
  m.gc = floats(m.kvec);
  m.egc = floats(m.kvec);
  m.et = floats(m.cols);
  m.sk = floats(m.rows);
  m.sq = floats(m.rows);
  m.dv = floats(m.rows);
  m.vv = floats(m.rows);
  m.scratch = floats(32);
  return m;
}

}  // namespace kda::cuda::detail
