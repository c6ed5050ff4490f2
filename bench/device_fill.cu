#include "bench/device_fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "cases/rng.hpp"

namespace kda::bench {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 16 ? b : 65535 * 16);  // grid-stride beyond this
}

template <typename T>
__device__ T from_float(float x);
template <>
__device__ float from_float<float>(float x) { return x; }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <>
__device__ __half from_float<__half>(float x) { return __float2half_rn(x); }

template <typename T>
__global__ void uniform_kernel(T* data, int64_t n, uint64_t key, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const uint64_t bits = rng::mix64(key ^ rng::mix64(static_cast<uint64_t>(i)));
    const float u = static_cast<float>(bits >> 40) * 0x1p-24f;  // [0, 1)
    data[i] = from_float<T>(lo + (hi - lo) * u);
  }
}

__global__ void ramp_kernel(int32_t* data, int64_t n, int32_t start, int32_t step) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    data[i] = start + static_cast<int32_t>(i) * step;
}

void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

void fill_uniform(void* data, int64_t n, ScalarType t, uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (n <= 0) return;
  const uint64_t key = rng::mix64(seed);
  switch (t) {
    case ScalarType::Float32:
      uniform_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(data), n, key, lo, hi);
      break;
    case ScalarType::BFloat16:
      uniform_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), n, key, lo, hi);
      break;
    case ScalarType::Float16:
      uniform_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__half*>(data), n, key, lo, hi);
      break;
    default:
      throw std::invalid_argument("fill_uniform: not a floating type");
  }
  check_launch("fill_uniform");
}

void fill_int32_ramp(void* data, int64_t n, int32_t start, int32_t step, cudaStream_t stream) {
  if (n <= 0) return;
  ramp_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<int32_t*>(data), n, start, step);
  check_launch("fill_int32_ramp");
}

}  // namespace kda::bench
