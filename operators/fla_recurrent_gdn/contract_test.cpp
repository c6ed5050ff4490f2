// fla_recurrent_gdn's contract: a valid call's dims, the per-head gate's shapes (a KDA gate or
// dt_bias refused with its message), lower_bound not taken (every error input raising what it
// names is the generic ContractMutations test's).
#include <gtest/gtest.h>

#include "contract/contract_error.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/fla_recurrent_gdn/contract.hpp"
#include "operators/fla_recurrent_gdn/description.hpp"

namespace kda::engine {
namespace {

CallConfig config(int64_t T) {
  CallConfig c;
  c.B = 3, c.H = 2, c.group = 2, c.K = 16, c.V = 32, c.slots = 9, c.tokens = T;
  return c;
}

std::pair<std::string, std::string> raised(const CallSpec& spec) {
  BuiltCall call(spec);
  try {
    validate_fla_recurrent_gdn(step_args(call));
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
  return {"", ""};
}

TEST(FlaRecurrentGdnContract, AValidCallGivesItsDims) {
  for (int64_t T : {1, 4}) {
    const CallConfig c = config(T);
    BuiltCall call(fla_recurrent_gdn_valid_spec(c));
    const Dims d = validate_fla_recurrent_gdn(step_args(call));
    EXPECT_EQ(d, fla_recurrent_gdn_operator().dims_of(c));
    EXPECT_EQ(d.T, T);
  }
}

TEST(FlaRecurrentGdnContract, TheGateIsOnePerValueHead) {
  const CallSpec valid = fla_recurrent_gdn_valid_spec(config(2));
  CallSpec s = valid;
  s.at("g").reshape({3, 2, 4, 16});  // KDA's per-key gate
  EXPECT_EQ(raised(s).second, "[kda-harness] `g` must be [B, T, HV] (got ndim=4).");
  s = valid;
  s.at("dt_bias").reshape({64});  // KDA's per-key dt_bias
  EXPECT_EQ(raised(s).second, "[kda-harness] `dt_bias` must have shape (4,) (got (64,)).");
  s = valid;
  s.at("g").reshape({3, 2, 5});
  EXPECT_EQ(raised(s).second, "[kda-harness] `g` must have shape (3, 2, 4) (got (3, 2, 5)).");
}

TEST(FlaRecurrentGdnContract, LowerBoundIsNotAnArgument) {
  StepArgs a;
  a.lower_bound = -5.0;
  a.state_v_first = true;
  const StepArgs bound = fla_recurrent_gdn_args(a);
  EXPECT_FALSE(bound.lower_bound.has_value());
  EXPECT_TRUE(bound.state_v_first);
}

}  // namespace
}  // namespace kda::engine
