// A lane's NC consecutive columns of one tensor row, moved as one vector access when the
// columns are contiguous and the address is aligned to the vector (f32: NC*4 bytes, 16-bit:
// NC*2), element by element otherwise. With lane l owning columns [l*NC, l*NC+NC), a warp's
// access to a 128-column row is one contiguous 512-byte (f32) or 256-byte (16-bit) span:
// every sector it touches is used whole. Any stride stays correct (the element path).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "contract/dtype_table.hpp"
#include "kernels/dtype_convert.cuh"

namespace kda::cuda::detail {

__device__ __forceinline__ float half_bits_to_float(uint32_t bits, int32_t dt) {
  const uint16_t h = static_cast<uint16_t>(bits);
  if (dt == kBF16) return __uint_as_float(static_cast<uint32_t>(h) << 16);
  return __half2float(__ushort_as_half(h));
}

__device__ __forceinline__ uint32_t float_to_half_bits(float x, int32_t dt) {
  if (dt == kBF16) return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  return __half_as_ushort(__float2half_rn(x));
}

// A lane's NC elements of dtype DT as stored, in 32-bit words (16-bit pairs packed low
// first): what a vector load brings, kept packed until used (half the registers for 16 bits).
template <int NC, int32_t DT>
__host__ __device__ constexpr int raw_words() {
  return (NC * float_dtype_bytes(DT) + 3) / 4;
}

// raw = the NC elements of dtype DT at `at`, one vector access (`at` aligned to NC elements).
template <int NC, int32_t DT>
__device__ __forceinline__ void load_raw(const char* at, uint32_t (&raw)[raw_words<NC, DT>()]) {
  constexpr int bytes = NC * float_dtype_bytes(DT);
  if constexpr (bytes == 16) {
    const uint4 v = *reinterpret_cast<const uint4*>(at);
    raw[0] = v.x, raw[1] = v.y, raw[2] = v.z, raw[3] = v.w;
  } else if constexpr (bytes == 8) {
    const uint2 v = *reinterpret_cast<const uint2*>(at);
    raw[0] = v.x, raw[1] = v.y;
  } else if constexpr (bytes == 4) {
    raw[0] = *reinterpret_cast<const uint32_t*>(at);
  } else {
    raw[0] = *reinterpret_cast<const uint16_t*>(at);
  }
}

// x = the floats of raw (exact: every DT widens to float32 without rounding).
template <int NC, int32_t DT>
__device__ __forceinline__ void unpack_raw(const uint32_t (&raw)[raw_words<NC, DT>()], float (&x)[NC]) {
#pragma unroll
  for (int n = 0; n < NC; ++n) {
    if constexpr (DT == kF32) x[n] = __uint_as_float(raw[n]);
    else x[n] = half_bits_to_float(raw[n / 2] >> (16 * (n % 2)), DT);
  }
}

// raw = x packed as dtype DT (x holds values of DT: exact).
template <int NC, int32_t DT>
__device__ __forceinline__ void pack_raw(const float (&x)[NC], uint32_t (&raw)[raw_words<NC, DT>()]) {
#pragma unroll
  for (int i = 0; i < raw_words<NC, DT>(); ++i) raw[i] = 0;
#pragma unroll
  for (int n = 0; n < NC; ++n) {
    if constexpr (DT == kF32) raw[n] = __float_as_uint(x[n]);
    else raw[n / 2] |= (float_to_half_bits(x[n], DT) & 0xffffu) << (16 * (n % 2));
  }
}

// x = the NC elements of dtype DT at `at`, one vector access (`at` aligned to NC elements).
template <int NC, int32_t DT>
__device__ __forceinline__ void load_cols_aligned(const char* at, float (&x)[NC]) {
  uint32_t raw[raw_words<NC, DT>()];
  load_raw<NC, DT>(at, raw);
  unpack_raw<NC, DT>(raw, x);
}

// The NC elements of dtype DT at `at` = x rounded (RNE), one vector access.
template <int NC, int32_t DT>
__device__ __forceinline__ void store_cols_aligned(char* at, const float (&x)[NC]) {
  if constexpr (DT == kF32) {
    if constexpr (NC == 4) *reinterpret_cast<float4*>(at) = make_float4(x[0], x[1], x[2], x[3]);
    else if constexpr (NC == 2) *reinterpret_cast<float2*>(at) = make_float2(x[0], x[1]);
    else *reinterpret_cast<float*>(at) = x[0];
  } else {
    if constexpr (NC == 4) {
      *reinterpret_cast<uint2*>(at) = make_uint2(float_to_half_bits(x[0], DT) | float_to_half_bits(x[1], DT) << 16,
                                                 float_to_half_bits(x[2], DT) | float_to_half_bits(x[3], DT) << 16);
    } else if constexpr (NC == 2) {
      *reinterpret_cast<uint32_t*>(at) = float_to_half_bits(x[0], DT) | float_to_half_bits(x[1], DT) << 16;
    } else {
      *reinterpret_cast<uint16_t*>(at) = static_cast<uint16_t>(float_to_half_bits(x[0], DT));
    }
  }
}

// x[n] = element (off + n*stride) of base, n < NC.
template <int NC>
__device__ __forceinline__ void load_cols(const char* base, int32_t dt, int64_t off, int64_t stride, float (&x)[NC]) {
  const int es = float_dtype_bytes(dt);
  const char* at = base + off * es;
  if (stride == 1 && (reinterpret_cast<uintptr_t>(at) & (NC * es - 1)) == 0) {
    if (dt == kF32) load_cols_aligned<NC, kF32>(at, x);
    else if (dt == kBF16) load_cols_aligned<NC, kBF16>(at, x);
    else load_cols_aligned<NC, kF16>(at, x);
    return;
  }
#pragma unroll
  for (int n = 0; n < NC; ++n) x[n] = load_float(base, off + n * stride, dt);
}

// Element (off + n*stride) of base = x[n] rounded (RNE) to dt, n < NC.
template <int NC>
__device__ __forceinline__ void store_cols(char* base, int32_t dt, int64_t off, int64_t stride, const float (&x)[NC]) {
  const int es = float_dtype_bytes(dt);
  char* at = base + off * es;
  if (stride == 1 && (reinterpret_cast<uintptr_t>(at) & (NC * es - 1)) == 0) {
    if (dt == kF32) store_cols_aligned<NC, kF32>(at, x);
    else if (dt == kBF16) store_cols_aligned<NC, kBF16>(at, x);
    else store_cols_aligned<NC, kF16>(at, x);
    return;
  }
#pragma unroll
  for (int n = 0; n < NC; ++n) store_float(base, off + n * stride, dt, x[n]);
}

}  // namespace kda::cuda::detail
