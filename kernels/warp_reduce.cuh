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

// N per-lane partials in (N = 32 or 8), lane l out with the warp's sum of partial l % N: a
// transposed butterfly that halves the live values each round (for 32: 16 + 8 + 4 + 2 + 1 =
// 31 shuffles instead of 32 x 5 for 32 separate warp_sums). In round `o` a lane keeps the
// half of its values selected by bit o of its lane id and sends the other half to lane ^ o,
// so after the last round position 0 holds partial index (lane % N) summed over the lanes
// that differ from this one in bits below N; for N < 32 the remaining lane bits are summed
// by plain butterflies (8: 4 + 2 + 1 + 2 = 9 shuffles).
template <int O, int N>
__device__ __forceinline__ void reduce_scatter_round(float (&x)[N], int lane) {
  const bool upper = (lane & O) != 0;
#pragma unroll
  for (int i = 0; i < O; ++i) {
    const float send = upper ? x[i] : x[i + O];
    const float keep = upper ? x[i + O] : x[i];
    x[i] = keep + __shfl_xor_sync(kFullMask, send, O);
  }
  if constexpr (O > 1) reduce_scatter_round<O / 2>(x, lane);
}

template <int N>
__device__ __forceinline__ float warp_reduce_scatter(float (&x)[N]) {
  static_assert(N == 32 || N == 16 || N == 8 || N == 4 || N == 2);
  reduce_scatter_round<N / 2>(x, threadIdx.x & 31);
#pragma unroll
  for (int o = N; o < 32; o <<= 1) x[0] += __shfl_xor_sync(kFullMask, x[0], o);
  return x[0];
}

}  // namespace kda::cuda::detail
