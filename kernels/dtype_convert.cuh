// Loads and stores through a runtime dtype code, so one kernel serves every dtype
// combination without instantiating one per combination. Stores round to nearest even.
// The checkpoint (the bulk of the bytes) goes through the typed helpers at the end instead:
// the kernel is instantiated once per STATE dtype only.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/replayssm_params.hpp"

namespace kda::cuda::detail {

__device__ __forceinline__ float load_float(const char* base, int64_t off, int32_t dt) {
  if (dt == kBF16) return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(base)[off]);
  if (dt == kF16) return __half2float(reinterpret_cast<const __half*>(base)[off]);
  return reinterpret_cast<const float*>(base)[off];
}

__device__ __forceinline__ void store_float(char* base, int64_t off, int32_t dt, float v) {
  if (dt == kBF16) reinterpret_cast<__nv_bfloat16*>(base)[off] = __float2bfloat16_rn(v);
  else if (dt == kF16) reinterpret_cast<__half*>(base)[off] = __float2half_rn(v);
  else reinterpret_cast<float*>(base)[off] = v;
}

// v rounded (RNE) to dtype dt and back to float: the spec's rounding points.
__device__ __forceinline__ float round_to(int32_t dt, float v) {
  if (dt == kBF16) return __bfloat162float(__float2bfloat16_rn(v));
  if (dt == kF16) return __half2float(__float2half_rn(v));
  return v;
}

// round_to without branches (both roundings, then a select): small code in unrolled loops.
__device__ __forceinline__ float round_to_sel(int32_t dt, float v) {
  const float b = __bfloat162float(__float2bfloat16_rn(v)), h = __half2float(__float2half_rn(v));
  return dt == kBF16 ? b : dt == kF16 ? h : v;
}

// Element i of a raw shared-memory array of dtype dt: one branch (4 or 2 bytes), not two.
__device__ __forceinline__ float smem_to_f32(const char* base, int i, int32_t dt) {
  if (dt == kF32) return reinterpret_cast<const float*>(base)[i];
  const uint16_t u = reinterpret_cast<const uint16_t*>(base)[i];
  return dt == kBF16 ? __uint_as_float(static_cast<uint32_t>(u) << 16) : __half2float(__ushort_as_half(u));
}

__device__ __forceinline__ int64_t load_int(const TensorRef& t, int64_t i) {
  const int64_t off = i * t.stride[0];
  if (t.dtype == kI64) return reinterpret_cast<const int64_t*>(t.ptr)[off];
  return reinterpret_cast<const int32_t*>(t.ptr)[off];
}

// Typed conversions for the state dtype (float, __nv_bfloat16, __half).
__device__ __forceinline__ float to_f32(float x) { return x; }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }

template <typename T>
__device__ __forceinline__ uint32_t bits_of(float v);  // v rounded (RNE) to T, as raw bits
template <>
__device__ __forceinline__ uint32_t bits_of<float>(float v) { return __float_as_uint(v); }
template <>
__device__ __forceinline__ uint32_t bits_of<__nv_bfloat16>(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
template <>
__device__ __forceinline__ uint32_t bits_of<__half>(float v) { return __half_as_ushort(__float2half_rn(v)); }

// 16 bytes of T from 16 / sizeof(T) floats, each rounded to T.
template <typename T>
__device__ __forceinline__ uint4 pack16(const float* x) {
  uint32_t w[4];
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = bits_of<T>(x[i]);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = bits_of<T>(x[2 * i]) | (bits_of<T>(x[2 * i + 1]) << 16);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

}  // namespace kda::cuda::detail
