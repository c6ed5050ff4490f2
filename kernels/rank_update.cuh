// The ring rebuild's rank update on one shared-memory tile: S[v][c] += sum_j D[j][v] W[j][c]
// (D = ring deltas, W = decayed ring keys, both already rounded to out's dtype, so every
// product is exact in float32 and only the float32 accumulation rounds).
// bfloat16 / float16 out: tensor cores (mma.sync m16n8k16, float32 accumulate).
// float32 out: plain float32 FMA (no TF32, so the products stay exact).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/replayssm_params.hpp"

namespace kda::cuda::detail {

// Tile geometry in shared memory: S is rows x cols with row stride s_stride; D is
// jp x rows (row stride rows); W is jp x cols (row stride cols). rows is a multiple of 16,
// cols of 8, jp of 16 for the tensor-core path; padding entries hold zeros.
struct RankTile {
  float* S;
  const float* D;
  const float* W;
  int rows, cols, s_stride, jp;
};

__device__ __forceinline__ void rank_update_fma(const RankTile& t) {
  const int n = t.rows * t.cols;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int v = i / t.cols, c = i % t.cols;
    float acc = t.S[v * t.s_stride + c];
    for (int j = 0; j < t.jp; ++j) acc = fmaf(t.D[j * t.rows + v], t.W[j * t.cols + c], acc);
    t.S[v * t.s_stride + c] = acc;
  }
}

// Two floats (exactly representable in the 16-bit type) packed low-first into a register.
template <bool kBF16>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (kBF16) {
    __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&p);
  } else {
    __half2 p = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&p);
  }
}

template <bool kBF16>
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if constexpr (kBF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// Each warp takes 16x8 output tiles in turn. Fragment layouts are the PTX ISA's for
// m16n8k16: A (16 x 16, rows = state rows v, cols = records j) is D transposed; B (16 x 8,
// rows = records j, cols = state columns c) is W; C/D accumulators hold S.
template <bool kBF16>
__device__ __forceinline__ void rank_update_mma(const RankTile& t) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  const int grp = lane >> 2, tig = lane & 3;
  const int n_col_tiles = t.cols / 8, n_tiles = (t.rows / 16) * n_col_tiles;
  for (int tile = warp; tile < n_tiles; tile += nwarps) {
    const int r0 = (tile / n_col_tiles) * 16 + grp;
    const int col = (tile % n_col_tiles) * 8 + tig * 2;
    const int ncol = (tile % n_col_tiles) * 8 + grp;
    float* s0 = t.S + r0 * t.s_stride + col;
    float* s8 = s0 + 8 * t.s_stride;
    float c[4] = {s0[0], s0[1], s8[0], s8[1]};
    for (int ks = 0; ks < t.jp; ks += 16) {
      const float* d0 = t.D + (ks + tig * 2) * t.rows;  // record j = ks + 2 tig
      const float* d1 = d0 + t.rows;                     // j + 1
      const float* d8 = d0 + 8 * t.rows;                 // j + 8
      const float* d9 = d8 + t.rows;                     // j + 9
      const uint32_t a[4] = {pack2<kBF16>(d0[r0], d1[r0]), pack2<kBF16>(d0[r0 + 8], d1[r0 + 8]),
                             pack2<kBF16>(d8[r0], d9[r0]), pack2<kBF16>(d8[r0 + 8], d9[r0 + 8])};
      const float* w0 = t.W + (ks + tig * 2) * t.cols + ncol;
      const uint32_t b[2] = {pack2<kBF16>(w0[0], w0[t.cols]),
                             pack2<kBF16>(w0[8 * t.cols], w0[9 * t.cols])};
      mma_16816<kBF16>(c, a, b);
    }
    s0[0] = c[0];
    s0[1] = c[1];
    s8[0] = c[2];
    s8[1] = c[3];
  }
}

__device__ __forceinline__ void rank_update(const RankTile& t, int32_t out_dtype) {
  if (out_dtype == kBF16) rank_update_mma<true>(t);
  else if (out_dtype == kF16) rank_update_mma<false>(t);
  else rank_update_fma(t);
}

}  // namespace kda::cuda::detail
