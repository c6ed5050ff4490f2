#include "property_tests/kernel_gpu_env.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string_view>

namespace kda::testing {
namespace {

// The device id of CTest's resource group 0 ("id:3,slots:1"), or -1 when CTest assigned none.
int assigned_gpu() {
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) return -1;
  const std::string_view s(spec);
  const auto at = s.find("id:");
  if (at == std::string_view::npos) return -1;
  return std::atoi(std::string(s.substr(at + 3)).c_str());
}

std::string probe() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  const int assigned = assigned_gpu();
  const int device = assigned >= 0 ? assigned : 0;
  if (device >= count)
    return "CTest assigned GPU " + std::to_string(device) + " but only " + std::to_string(count) + " are visible";
  if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess)
    return std::string("cudaSetDevice failed: ") + cudaGetErrorString(s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  if (prop.major < 9) return "the kernel is built for sm_90; device " + std::to_string(device) + " is sm_" +
                             std::to_string(prop.major * 10 + prop.minor);
  return "";
}

}  // namespace

std::string gpu_unavailable_reason() {
  static const std::string reason = probe();
  return reason;
}

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (end != nullptr && *end == '\0') ? n : fallback;
}

}  // namespace kda::testing
