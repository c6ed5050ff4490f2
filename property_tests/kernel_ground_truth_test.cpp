// The CUDA kernel against the plain float64 recurrence (engine::run_vs_truth): outputs at
// every token and checkpoints after every flush, within the dtype-derived rollout bounds
// (with the driver's gate-mass term and floors).
// KDA_GPU_TRUTH_ROLLOUTS sets the number of rollouts (default 300).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "engine/backends/cuda_backend.hpp"
#include "engine/driver/reference_vs_truth.hpp"
#include "engine/driver/run_case.hpp"
#include "property_tests/kernel_gpu_env.hpp"
#include "property_tests/rc_chooser.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

TEST(KernelVsGroundTruth, RandomRollouts) {
  KDA_REQUIRE_GPU();
  double worst_out_ratio = 0, worst_state_ratio = 0;
  int64_t rollouts = 0;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = static_cast<int>(env_int("KDA_GPU_TRUTH_ROLLOUTS", 300));
  rc::detail::TestMetadata meta;
  meta.id = meta.description = "KernelVsGroundTruth/RandomRollouts";
  const auto result = rc::detail::checkTestable(
      [&] {
        const CaseConfig c = *gen_case(engine::limits::gpu_suites());
        auto backend = engine::make_cuda_backend(-1);  // fresh device buffers per rollout
        const engine::CaseReport r = engine::run_vs_truth(c, *backend);
        if (!r.pass()) {
          // Tell a kernel fault from a tolerance-model fault (the CPU reference with the same
          // rounding points exceeds the same bounds): both fail, with different messages.
          const auto ref = engine::reference_vs_truth(c, engine::ReferenceModel::Kernel);
          if (ref.pass()) RC_FAIL("kernel: " + r.summary() + "\nCPU reference (kernel rounding) passes: " + ref.summary());
          RC_FAIL("tolerance model: the CPU rounding model exceeds the bound too\n  kernel:    " + r.summary() +
                  "\n  reference: " + ref.summary());
        }
        ++rollouts;
        if (r.out.blocks > 0) worst_out_ratio = std::max(worst_out_ratio, r.out.worst_error / r.out.tolerance);
        if (r.state.blocks > 0) worst_state_ratio = std::max(worst_state_ratio, r.state.worst_error / r.state.tolerance);
      },
      meta, params);
  std::printf("kernel vs float64 recurrence: %lld rollouts within bounds, worst output error/bound %.3f, state %.3f\n",
              static_cast<long long>(rollouts), worst_out_ratio, worst_state_ratio);
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream msg;
    rc::detail::printResultMessage(result, msg);
    FAIL() << msg.str();
  }
}

}  // namespace
}  // namespace kda::testing
