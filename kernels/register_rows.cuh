// The operations the decode kernels apply to a warp's state rows held in registers (16, or
// the short-ring kernel's groups of 4),
// lane l owning columns [l*NC, l*NC + NC) of each row (S[row][n]).
#pragma once

#include "kernels/warp_reduce.cuh"

namespace kda::cuda::detail {

constexpr int kRowsPerWarp = 16;  // S.k and S.q of 16 rows = 32 values: one per lane after the reduction

// S[r][n] *= x[n]: a decay of every row by per-column factors.
template <int NC>
__device__ __forceinline__ void scale_columns(float (&S)[kRowsPerWarp][NC], const float (&x)[NC]) {
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr)
#pragma unroll
    for (int n = 0; n < NC; ++n) S[rr][n] *= x[n];
}

// S[r][n] += d[r] w[n]: one ring record of the rebuild. d is 16 floats of shared memory
// (16-byte aligned) that every lane reads at the same address: four broadcasts.
template <int NC>
__device__ __forceinline__ void add_record(float (&S)[kRowsPerWarp][NC], const float* d, const float (&w)[NC]) {
  const float4* d4 = reinterpret_cast<const float4*>(d);
#pragma unroll
  for (int q = 0; q < kRowsPerWarp / 4; ++q) {
    const float4 dq = d4[q];
    const float dr[4] = {dq.x, dq.y, dq.z, dq.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int n = 0; n < NC; ++n) S[4 * q + i][n] = fmaf(dr[i], w[n], S[4 * q + i][n]);
  }
}

// R rows (16, or the short-ring kernel's groups of 4) dotted with x and y over the warp's
// columns: lane l gets row (l % 2R) / 2's S.x (l even) or S.y (l odd).
template <int R, int NC>
__device__ __forceinline__ float row_dots(const float (&S)[R][NC], const float (&x)[NC], const float (&y)[NC]) {
  float part[2 * R];
#pragma unroll
  for (int rr = 0; rr < R; ++rr) {
    float sx = 0.0f, sy = 0.0f;
#pragma unroll
    for (int n = 0; n < NC; ++n) sx += S[rr][n] * x[n], sy += S[rr][n] * y[n];
    part[2 * rr] = sx;
    part[2 * rr + 1] = sy;
  }
  return warp_reduce_scatter(part);
}

}  // namespace kda::cuda::detail
