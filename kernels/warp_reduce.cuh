// Warp-wide sums without shared memory or block barriers.
#pragma once

namespace kda::cuda::detail {

constexpr unsigned kFullMask = 0xffffffffu;

// Every lane gets the sum of x over the warp.
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(kFullMask, x, o);
  return x;
}

// 32 per-lane partials in, lane l out with the warp's sum of partial l: a transposed
// butterfly that halves the live values each round (16 + 8 + 4 + 2 + 1 = 31 shuffles
// instead of 32 x 5 for 32 separate warp_sums). In round `o` a lane keeps the half of its
// values selected by bit o of its lane id and sends the other half to lane ^ o, so after
// the last round position 0 holds partial index 16*b4 + 8*b3 + 4*b2 + 2*b1 + b0 = lane.
template <int O>
__device__ __forceinline__ void reduce_scatter_round(float (&x)[32], int lane) {
  const bool upper = (lane & O) != 0;
#pragma unroll
  for (int i = 0; i < O; ++i) {
    const float send = upper ? x[i] : x[i + O];
    const float keep = upper ? x[i + O] : x[i];
    x[i] = keep + __shfl_xor_sync(kFullMask, send, O);
  }
  if constexpr (O > 1) reduce_scatter_round<O / 2>(x, lane);
}

__device__ __forceinline__ float warp_reduce_scatter32(float (&x)[32]) {
  reduce_scatter_round<16>(x, threadIdx.x & 31);
  return x[0];
}

}  // namespace kda::cuda::detail
