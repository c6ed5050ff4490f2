// The device mirror across cases: one mirror judges many cases (a fuzz target, a suite's
// worker), so its device memory must not grow with the number of cases it has seen, and a
// buffer it reuses for another case's tensor (of another size) must give the same bytes as a
// fresh mirror, with its guards judged on that case alone.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/backends/device_mirror.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/kernel_gpu_env.hpp"

namespace kda::testing {
using ::kda::engine::check_cuda;
using ::kda::engine::DeviceMirror;
namespace {

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return free;
}

bool same_bytes(const HostTensor& x, const HostTensor& y) {
  return x.storage().size() == y.storage().size() &&
         std::memcmp(x.storage().data(), y.storage().data(), x.storage().size()) == 0;
}

// About 4 MiB of checkpoints per case.
CaseConfig big_case(uint64_t seed) {
  CaseConfig c;
  c.B = 8, c.H = 2, c.HV = 8, c.K = 128, c.V = 128, c.L = 8, c.slots = 8, c.steps = 1, c.seed = seed;
  return c;
}

TEST(KernelMirror, DeviceMemoryDoesNotGrowWithTheCasesSeen) {
  KDA_REQUIRE_GPU();
  DeviceMirror mirror;
  // All cases stay alive, so no host tensor's address is reused by a later case.
  std::vector<CaseTensors> cases;
  cases.reserve(31);
  cases.push_back(materialize_replayssm_case(big_case(1)));
  mirror.step(cases.back().args());
  const std::size_t after_first = free_device_bytes();
  for (uint64_t seed = 2; seed <= 31; ++seed) {
    cases.push_back(materialize_replayssm_case(big_case(seed)));
    mirror.step(cases.back().args());
  }
  // Each case holds ~4 MiB of checkpoints: 30 more cases kept on the device would take 120 MiB.
  const std::size_t after_all = free_device_bytes();
  EXPECT_LT(after_first - std::min(after_first, after_all), std::size_t{32} << 20)
      << "device memory fell by " << (after_first - after_all) / (1 << 20) << " MiB over 30 cases";
  EXPECT_TRUE(mirror.guards_intact());
}

TEST(KernelMirror, ReusedBuffersGiveTheBytesOfAFreshMirror) {
  KDA_REQUIRE_GPU();
  DeviceMirror reused;
  // Large, then small (a buffer laid out again inside a larger one), then large again, with
  // other layouts (the envelope's padded slots and page-major rings) in between.
  const char* lines[] = {"B=8 H=2 HV=8 K=128 V=128 L=8 slots=8 steps=3 seed=5",
                         "B=2 H=1 HV=2 K=16 V=32 L=4 slots=3 steps=3 act=bf16 ring=bf16 out=bf16 idx=i64 seed=6",
                         "B=4 H=2 HV=4 K=64 V=64 L=5 slots=6 steps=3 seed=7 env=1",
                         "B=8 H=2 HV=8 K=128 V=128 L=8 slots=8 steps=3 seed=8"};
  for (const char* line : lines) {
    const CaseConfig c = parse_case_config(line);
    CaseTensors a = materialize_replayssm_case(c), b = materialize_replayssm_case(c);
    DeviceMirror fresh;
    for (int64_t t = 0; t < c.steps; ++t) {
      if (t > 0) {
        fill_token(a, t);
        fill_token(b, t);
      }
      reused.step(a.args());
      fresh.step(b.args());
      EXPECT_TRUE(same_bytes(a.out, b.out)) << line << " token " << t;
      EXPECT_TRUE(same_bytes(a.initial_state, b.initial_state)) << line << " token " << t;
      EXPECT_TRUE(same_bytes(a.d_cache, b.d_cache)) << line << " token " << t;
      EXPECT_TRUE(same_bytes(a.k_cache, b.k_cache)) << line << " token " << t;
      EXPECT_TRUE(same_bytes(a.g_cache, b.g_cache)) << line << " token " << t;
      EXPECT_EQ(reused.row_status(), fresh.row_status()) << line << " token " << t;
      EXPECT_TRUE(reused.guards_intact()) << line << " token " << t;
      advance_cursors(a);
      advance_cursors(b);
    }
  }
}

}  // namespace
}  // namespace kda::testing
