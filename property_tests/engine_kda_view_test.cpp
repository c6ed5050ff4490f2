// An operator's view of its call as kda_replayssm's (its ReplaySSM driver's as_kda_call), made
// again in the same storage step after step (the oracles keep it): it must hold what a view
// made afresh holds, whatever changed in between (gdn_replayssm repeats a ring record's gate
// again only where its bytes changed).
#include <gtest/gtest.h>

#include <vector>

#include "contract/validate.hpp"
#include "engine/description/operator.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/replayssm_driver.hpp"

namespace kda::engine {
namespace {

void expect_same_view(const StepArgs& kept, const StepArgs& fresh, const char* what) {
  const auto bytes = [](const DLTensor& t) {
    int64_t n = 1;
    for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
    const auto* p = static_cast<const std::byte*>(t.data) + t.byte_offset;
    return std::vector<std::byte>(p, p + n * (t.dtype.bits / 8));
  };
  EXPECT_EQ(bytes(*kept.a), bytes(*fresh.a)) << what;
  EXPECT_EQ(bytes(*kept.dt_bias), bytes(*fresh.dt_bias)) << what;
  EXPECT_EQ(bytes(*kept.g_cache), bytes(*fresh.g_cache)) << what;
}

TEST(KdaView, MadeAgainInItsStorageIsTheFreshView) {
  const OperatorDescription& op = find_operator("gdn_replayssm");
  const KdaCallView as_kda = replayssm_driver_of(op).as_kda_call;
  ASSERT_NE(as_kda, nullptr);
  std::vector<HostTensor> kept;
  for (const char* line : {"B=3 H=2 HV=4 K=32 V=8 L=5 slots=6 steps=2 seed=4 ring=bf16",
                           "B=3 H=2 HV=4 K=32 V=8 L=5 slots=6 steps=2 seed=5 ring=f32",  // another ring dtype
                           "B=2 H=1 HV=2 K=64 V=8 L=3 slots=4 steps=2 seed=6"}) {       // other dims
    CaseTensors t = materialize_replayssm_case(op.fit_case(parse_case_config(line)));
    const Dims d = op.validate(op.bind(t.args()), kda::Backend::Cpu);
    for (int change = 0; change < 4; ++change) {
      if (change > 0) {  // a step's appends: a few records' gates change (NaN ones included)
        t.g_cache.set_linear(change * 7 % t.g_cache.numel(), -0.25 * change);
        t.g_cache.set_linear(change * 13 % t.g_cache.numel(), change == 2 ? 0.0 : 1.5);
        t.a.set_linear(change, 0.5 * change);
      }
      std::vector<HostTensor> fresh;
      expect_same_view(as_kda(t.args(), d, kept), as_kda(t.args(), d, fresh), line);
    }
  }
}

}  // namespace
}  // namespace kda::engine
