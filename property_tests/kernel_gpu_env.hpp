// GPU tests: skip with a visible reason where no GPU is present, and run on the GPU that
// CTest assigned (engine::gpu_unavailable_reason selects it).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "engine/backends/gpu_probe.hpp"

namespace kda::testing {

// Prints, once per process, which GPU the tests run on and what CTest assigned ("GPU test
// process on device 1 (CTEST_RESOURCE_GROUP_0_GPUS=id:1,slots:1)"), so that a log shows how
// ctest spread the tests over the GPUs.
void announce_gpu();

// An integer from the environment (e.g. KDA_GPU_ROLLOUTS), or fallback when unset/invalid.
int64_t env_int(const char* name, int64_t fallback);

}  // namespace kda::testing

#define KDA_REQUIRE_GPU()                                                                \
  do {                                                                                   \
    const std::string kda_gpu_reason_ = ::kda::engine::gpu_unavailable_reason();         \
    if (!kda_gpu_reason_.empty()) GTEST_SKIP() << kda_gpu_reason_;                        \
    ::kda::testing::announce_gpu();                                                      \
  } while (0)
