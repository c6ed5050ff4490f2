// fla_recurrent_kda's contract: a valid call's dims, each check's exact message on a call that
// breaks it (the texts of docs/fla-recurrent-decode.md), the order of two checks, the runtime
// values (every error input raising what it names is the generic ContractMutations test's).
#include <gtest/gtest.h>

#include "contract/contract_error.hpp"
#include "contract/host_tensor.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/fla_recurrent_kda/contract.hpp"
#include "operators/fla_recurrent_kda/description.hpp"

namespace kda::engine {
namespace {

CallConfig config(int64_t T) {
  CallConfig c;
  c.B = 3, c.H = 2, c.group = 2, c.K = 16, c.V = 32, c.slots = 9, c.tokens = T;
  return c;
}

// The id and message validate() raises on the call ("" when it accepts it).
std::pair<std::string, std::string> raised(const CallSpec& spec, const StepArgs& scalars = {}) {
  BuiltCall call(spec);
  StepArgs a = step_args(call);
  a.allow_neg_eigval = scalars.allow_neg_eigval;
  a.use_beta_sigmoid_in_kernel = scalars.use_beta_sigmoid_in_kernel;
  a.state_v_first = scalars.state_v_first;
  try {
    validate_fla_recurrent_kda(a);
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
  return {"", ""};
}

TEST(FlaRecurrentKdaContract, AValidCallGivesItsDims) {
  for (int64_t T : {1, 3}) {
    const CallConfig c = config(T);
    BuiltCall call(fla_recurrent_kda_valid_spec(c));
    const Dims d = validate_fla_recurrent_kda(step_args(call));
    EXPECT_EQ(d, fla_recurrent_kda_operator().dims_of(c));
    EXPECT_EQ(d.T, T);
    EXPECT_EQ(d.slots, 9);
  }
}

TEST(FlaRecurrentKdaContract, MessagesByteForByte) {
  const CallSpec valid = fla_recurrent_kda_valid_spec(config(3));
  StepArgs neg;
  neg.allow_neg_eigval = true;
  EXPECT_EQ(raised(valid, neg).second, "[kda-harness] `allow_neg_eigval=True` requires `use_beta_sigmoid_in_kernel=True`.");
  CallSpec s = valid;
  s.at("v").reshape({3, 2, 32});
  EXPECT_EQ(raised(s).second, "[kda-harness] `v` must be [B, T, HV, V] (got ndim=3).");
  s = valid;
  s.at("dt_bias").reshape({4});
  EXPECT_EQ(raised(s).second, "[kda-harness] `dt_bias` must have shape (64,) (got (4,)).");
  s = valid;
  s.at("out").reshape({3, 3, 4, 16});
  EXPECT_EQ(raised(s).second, "[kda-harness] `out` must have v's shape (3, 3, 4, 32) (got (3, 3, 4, 16)).");
  s = valid;
  s.erase("num_accepted_tokens");
  s.at("ssm_state_indices").reshape({3});
  EXPECT_EQ(raised(s).second,
            "[kda-harness] `ssm_state_indices` must be [B, T], or [B] when T = 1 (got (3,) with B=3, T=3).");
  s = valid;
  s.at("ssm_state_indices").explicit_strides() = {1, 3};
  EXPECT_EQ(raised(s).second, "[kda-harness] `ssm_state_indices` must be contiguous (the pool `initial_state` in its "
                              "inner three dims): the kernel ignores its strides.");
  // A V-first pool without state_v_first (K != V): the layout fla would read transposed.
  s = valid;
  s.at("initial_state").reshape({9, 4, 32, 16});
  EXPECT_EQ(raised(s).second, "[kda-harness] `initial_state` must have shape (9, 4, 16, 32) (got (9, 4, 32, 16)).");
  StepArgs v_first;
  v_first.state_v_first = true;
  EXPECT_EQ(raised(s, v_first).first, "");
}

TEST(FlaRecurrentKdaContract, TheEarlierCheckWins) {
  CallSpec s = fla_recurrent_kda_valid_spec(config(2));
  s.at("out").reshape({3, 2, 4, 8});              // X-FLA-OUT-SHAPE
  s.at("ssm_state_indices").explicit_strides() = {1, 3};  // X-FLA-CONTIGUOUS, later
  EXPECT_EQ(raised(s).first, "X-FLA-OUT-SHAPE");
}

// Index values on the host: a live row's every index in the pool, no slot twice, accepted
// counts in [1, T]; a padding row (first index negative) is free.
TEST(FlaRecurrentKdaContract, RuntimeValues) {
  const Dims d{2, 1, 1, 4, 4, 0, 5, 2};
  HostTensor idx(ScalarType::Int32, {2, 2}), nat(ScalarType::Int32, {2});
  StepArgs a;
  a.ssm_state_indices = &idx.dl();
  a.num_accepted_tokens = &nat.dl();
  const auto check = [&](std::vector<int> values, std::vector<int> accepted) -> std::string {
    for (int i = 0; i < 4; ++i) idx.set_linear(i, values[static_cast<std::size_t>(i)]);
    for (int i = 0; i < 2; ++i) nat.set_linear(i, accepted[static_cast<std::size_t>(i)]);
    try {
      check_fla_runtime_values(a, d);
    } catch (const ContractError& e) {
      return e.id();
    }
    return "";
  };
  EXPECT_EQ(check({0, 1, 2, 3}, {1, 2}), "");
  EXPECT_EQ(check({-1, 7, 2, 3}, {0, 2}), "");  // padding row 0: nothing of it is read
  EXPECT_EQ(check({0, 5, 2, 3}, {1, 2}), "X-SLOT-INDEX");
  EXPECT_EQ(check({0, -1, 2, 3}, {1, 2}), "X-SLOT-INDEX");
  EXPECT_EQ(check({0, 1, 1, 3}, {1, 2}), "X-DUP-SLOT");
  EXPECT_EQ(check({0, 1, 2, 3}, {0, 2}), "X-FLA-ACCEPTED-VALUE");
  EXPECT_EQ(check({0, 1, 2, 3}, {1, 3}), "X-FLA-ACCEPTED-VALUE");
}

}  // namespace
}  // namespace kda::engine
