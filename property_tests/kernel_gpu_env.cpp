#include "property_tests/kernel_gpu_env.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace kda::testing {

void announce_gpu() {
  static const bool once = [] {
    int device = -1;
    cudaGetDevice(&device);
    const char* assigned = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    std::printf("GPU test process on device %d (CTEST_RESOURCE_GROUP_0_GPUS=%s)\n", device,
                assigned ? assigned : "unset");
    std::fflush(stdout);
    return true;
  }();
  (void)once;
}

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (end != nullptr && *end == '\0') ? n : fallback;
}

}  // namespace kda::testing
