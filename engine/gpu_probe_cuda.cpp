#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "engine/gpu_probe.hpp"

namespace kda::engine {
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

std::string select_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  const int assigned = assigned_gpu();
  const int device = assigned >= 0 ? assigned : 0;
  if (device >= count)
    return fmt::format("CTest assigned GPU {} but only {} are visible", device, count);
  if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess)
    return std::string("cudaSetDevice failed: ") + cudaGetErrorString(s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  if (prop.major < 9)
    return fmt::format("the kernel is built for sm_90; device {} is sm_{}{}", device, prop.major, prop.minor);
  return "";
}

}  // namespace

GpuProbe probe_gpus() {
  GpuProbe p;
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    p.reason = std::string("no CUDA device: ") + cudaGetErrorString(e);
    return p;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    if (prop.major < 9) {
      p.reason += fmt::format("device {} is sm_{}{} (the kernel needs sm_90); ", d, prop.major, prop.minor);
      continue;
    }
    p.devices.push_back(d);
    p.names.push_back(fmt::format("{}: {} (sm_{}{})", d, prop.name, prop.major, prop.minor));
  }
  if (p.devices.empty() && p.reason.empty()) p.reason = "no CUDA device: cudaGetDeviceCount returned 0";
  return p;
}

std::string gpu_unavailable_reason() {
  static const std::string reason = select_device();
  return reason;
}

}  // namespace kda::engine
