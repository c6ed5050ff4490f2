// The key property across operators: on any case of the plain packed decode (L = 1, every
// row flushing every token), a rollout of its reference step and a rollout of ReplaySSM's
// reference step each equal the float64 plain recurrence within the tolerance model (the
// packed decode's truth keeps beta in float32, ReplaySSM's rounds it through b's dtype); and
// where that rounding is the identity (float32 b) the two rollouts agree with each other
// token by token, outputs and states, to float32 arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/backends/reference_backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/driver/reference_vs_truth.hpp"
#include "engine/driver/run_case.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/truth_oracle.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

const engine::OperatorDescription& packed() { return engine::find_operator("kda_packed_decode"); }
const engine::OperatorDescription& replayssm() { return engine::default_operator(); }

engine::CaseReport rollout(const engine::OperatorDescription& op, const CaseConfig& c) {
  return engine::reference_vs_truth(c, engine::ReferenceModel::Kernel, op);
}

// The reference step of `stepped` judged against the truth with beta rounded through b's
// dtype or not.
engine::CaseReport rollout_vs(const engine::OperatorDescription& stepped, const CaseConfig& c, bool beta_through_b) {
  const auto backend = engine::make_reference_backend(reference::Rounding::Kernel, stepped);
  CaseTensors t = materialize_replayssm_case(c);
  engine::CaseReport r = engine::start_report(c, *backend, "truth");
  const auto oracle = engine::truth_oracle(reference::rollout_bounds(c), beta_through_b);
  engine::run_case({t, c.steps, [&t](int64_t token) { fill_token(t, token); }, true, nullptr}, *backend, *oracle, r);
  return r;
}

std::vector<double> values(const HostTensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.get_linear(static_cast<int64_t>(i));
  return v;
}

// max |x - y| / max(max |y|, tiny), NaN-aware (a NaN gap byte equals a NaN gap byte).
double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0, scale = 1e-30;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    diff = std::max(diff, std::isnan(x[i] - y[i]) ? INFINITY : std::abs(x[i] - y[i]));
    scale = std::max(scale, std::abs(y[i]));
  }
  return diff / scale;
}

TEST(OperatorsKeyProperty, PackedDecodeAndReplaySSMAtL1BothEqualThePlainRecurrence) {
  check_property("both rollouts equal the plain recurrence", case_count("KDA_REFERENCE_CASES", 150), [] {
    const CaseConfig c = packed().fit_case(*gen_case(engine::limits::reference_suites(12)).as("config"));
    const engine::CaseReport p = rollout(packed(), c), r = rollout(replayssm(), c);
    RC_ASSERT(p.pass());
    RC_ASSERT(r.pass());
    RC_ASSERT(p.flushes == r.flushes);
  });
}

TEST(OperatorsKeyProperty, WithFloat32BetaTheTwoRolloutsAgree) {
  check_property("the two rollouts agree", case_count("KDA_REFERENCE_CASES", 100), [] {
    CaseConfig c = packed().fit_case(*gen_case(engine::limits::reference_suites(8)).as("config"));
    c.act_dtype = c.state_dtype = c.out_dtype = ScalarType::Float32;
    CaseTensors x = materialize_replayssm_case(c), y = materialize_replayssm_case(c);
    for (int64_t t = 0; t < c.steps; ++t) {
      if (t > 0) fill_token(x, t), fill_token(y, t);
      packed().reference_step(packed().bind(x.args()), reference::Rounding::Kernel);
      replayssm().reference_step(y.args(), reference::Rounding::Kernel);
      RC_ASSERT(relative_difference(values(x.out), values(y.out)) < 1e-4);
      RC_ASSERT(relative_difference(values(x.initial_state), values(y.initial_state)) < 1e-4);
      advance_cursors(y);  // stays 0 at L = 1
    }
  });
}

// The truths differ: ReplaySSM's step judged against the packed decode's truth (beta kept
// float32) fails once b is bfloat16, so the first property can tell the two functions apart.
TEST(OperatorsKeyProperty, BetaRoundingIsVisibleToTheTruth) {
  int failed = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CaseConfig c = packed().fit_case(CaseConfig{});
    c.K = c.V = 32;
    c.steps = 4;
    c.seed = seed;
    c.act_dtype = ScalarType::BFloat16;
    c.state_dtype = c.out_dtype = ScalarType::Float32;
    failed += !rollout_vs(replayssm(), c, /*beta_through_b=*/false).pass();
    EXPECT_TRUE(rollout(packed(), c).pass()) << to_string(c);
  }
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace kda::testing
