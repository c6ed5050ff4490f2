// Loads and stores through a runtime dtype code, so one kernel serves every dtype
// combination without instantiating one per combination. Stores round to nearest even.
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

// The bits of element off of a runtime-dtype float tensor (a 16-bit one's zero-extended), for
// bits_to_float to convert after the other loads of a round are issued: load_float converts
// inside its dtype branch, so the warp waits for each load before it issues the next.
__device__ __forceinline__ uint32_t load_bits(const char* base, int64_t off, int32_t dt) {
  if (dt == kF32) return reinterpret_cast<const uint32_t*>(base)[off];
  return reinterpret_cast<const uint16_t*>(base)[off];
}

// load_float's value from load_bits' bits (the same conversions).
__device__ __forceinline__ float bits_to_float(uint32_t bits, int32_t dt) {
  if (dt == kBF16) return __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(bits)));
  if (dt == kF16) return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  return __uint_as_float(bits);
}

// v rounded (RNE) to dtype dt and back to float: the spec's rounding points.
__device__ __forceinline__ float round_to(int32_t dt, float v) {
  if (dt == kBF16) return __bfloat162float(__float2bfloat16_rn(v));
  if (dt == kF16) return __half2float(__float2half_rn(v));
  return v;
}

__device__ __forceinline__ int64_t load_int(const TensorRef& t, int64_t i) {
  const int64_t off = i * t.stride[0];
  if (t.dtype == kI64) return reinterpret_cast<const int64_t*>(t.ptr)[off];
  return reinterpret_cast<const int32_t*>(t.ptr)[off];
}

}  // namespace kda::cuda::detail
