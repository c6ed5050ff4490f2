// GPU tests: skip with a visible reason where no GPU is present, and run on the GPU that
// CTest assigned (RESOURCE_GROUPS "gpus:1" -> CTEST_RESOURCE_GROUP_0_GPUS="id:N,slots:1").
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace kda::testing {

// "" when a CUDA device is usable (and then it is the current device: the CTest-assigned
// one, else device 0); otherwise why not, e.g. "no CUDA device: <cudaGetErrorString>".
std::string gpu_unavailable_reason();

// An integer from the environment (e.g. KDA_GPU_ROLLOUTS), or fallback when unset/invalid.
int64_t env_int(const char* name, int64_t fallback);

}  // namespace kda::testing

#define KDA_REQUIRE_GPU()                                                        \
  do {                                                                           \
    const std::string kda_gpu_reason_ = ::kda::testing::gpu_unavailable_reason(); \
    if (!kda_gpu_reason_.empty()) GTEST_SKIP() << kda_gpu_reason_;                \
  } while (0)
