// Guard regions of host backends (engine/driver/host_guards.hpp): a backend that computes on host
// memory (the reference, a CPU plugin, a Python callable) and writes past a tensor it was lent
// fails the case, naming the tensor; one that stays inside passes as before.
#include <gtest/gtest.h>

#include <cstring>

#include "cases/case_config.hpp"
#include "engine/backends/function_backend.hpp"
#include "engine/driver/run_case.hpp"
#include "operators/kda_replayssm/reference_step.hpp"

namespace kda::engine {
namespace {

// out is [2, 1, 2, 16] float32: 256 bytes, a multiple of 16, so that without guard regions the
// bytes just past it are the allocator's slack and the stray write below lands there quietly.
constexpr const char* kCase = "B=2 H=1 HV=2 K=16 V=16 L=4 slots=3 steps=2 out=f32 pad=0 seed=3";

// Just past the last element of a compact tensor.
std::byte* end_of(const DLTensor* t) {
  int64_t n = t->dtype.bits / 8;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return static_cast<std::byte*>(t->data) + t->byte_offset + n;
}

TEST(HostGuards, AWritePastOutFailsTheCaseNamingIt) {
  FunctionBackend overruns("overruns-out", [](const StepArgs& a) {
    reference::replayssm_step(a);
    std::memset(end_of(a.out), 0, 4);  // one float past the last element
  });
  const CaseReport r = run_vs_reference(parse_case_config(kCase), overruns);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("past the end of `out`"), std::string::npos) << r.failure;
}

TEST(HostGuards, AWriteBeforeARingFailsTheCaseNamingIt) {
  FunctionBackend underruns("underruns-g_cache", [](const StepArgs& a) {
    reference::replayssm_step(a);
    static_cast<std::byte*>(a.g_cache->data)[static_cast<std::ptrdiff_t>(a.g_cache->byte_offset) - 1] = std::byte{0};
  });
  const CaseReport r = run_vs_reference(parse_case_config(kCase), underruns);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("before the start of `g_cache`"), std::string::npos) << r.failure;
}

TEST(HostGuards, AStepThatStaysInsidePasses) {
  FunctionBackend clean("clean", [](const StepArgs& a) { reference::replayssm_step(a); });
  const CaseReport r = run_vs_reference(parse_case_config(kCase), clean);
  EXPECT_TRUE(r.pass()) << r.summary();
}

}  // namespace
}  // namespace kda::engine
