// RapidCheck generators of the reference suites: CaseConfigs over every float dtype of each
// tensor, K and V powers of two 16..256, HV/H in {1, 2, 4, 8}, L 1..64, up to 64 tokens,
// padding rows, divergent cursors, forced flushes, both gates, L2 norm on and off, 2-D/3-D
// a, 1-D/2-D dt_bias, envelope layouts, both value modes. A work budget keeps each rollout
// bounded: large K*V*L*HV cases get fewer tokens and rows, so thousands of rollouts fit in a
// few minutes on two cores. Shrinking moves towards small shapes.
#pragma once
#include <rapidcheck.h>

#include <ostream>

#include "cases/case_config.hpp"

namespace kda {
// RapidCheck prints a failing CaseConfig as its one-line form (replayable with
// `kda-harness case "<line>"`).
inline void showValue(const CaseConfig& c, std::ostream& os) { os << to_string(c); }
}  // namespace kda

namespace kda::testing {

inline rc::Gen<ScalarType> gen_float_dtype() {
  return rc::gen::element(ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16);
}

// max_steps bounds T; the budget then scales T, B and the heads down.
inline rc::Gen<CaseConfig> gen_reference_case(int64_t max_steps = 64, double work_budget = 2.5e7) {
  return rc::gen::exec([max_steps, work_budget] {
    // Drawn at full size whatever RapidCheck's size parameter (which keeps early cases tiny).
    const auto full = [](auto gen) { return *rc::gen::resize(100, gen); };
    const auto dim = [&full] {
      return full(rc::gen::weightedElement<int64_t>({{3, 16}, {3, 32}, {3, 64}, {3, 128}, {1, 256}}));
    };
    CaseConfig c;
    c.act_dtype = *gen_float_dtype();
    c.state_dtype = *gen_float_dtype();
    c.ring_dtype = *gen_float_dtype();
    c.out_dtype = *gen_float_dtype();
    c.index_dtype = *rc::gen::element(ScalarType::Int32, ScalarType::Int64);
    c.H = full(rc::gen::inRange<int64_t>(1, 3));
    c.HV = c.H * *rc::gen::element<int64_t>(1, 2, 4, 8);
    c.K = dim();
    c.V = dim();
    c.L = full(rc::gen::weightedOneOf<int64_t>(
        {{1, rc::gen::just<int64_t>(1)}, {5, rc::gen::inRange<int64_t>(2, 17)}, {3, rc::gen::inRange<int64_t>(17, 65)}}));
    c.B = full(rc::gen::inRange<int64_t>(1, 5));
    c.slots = c.B + full(rc::gen::inRange<int64_t>(0, 4));
    c.steps = full(rc::gen::inRange<int64_t>(1, max_steps + 1));
    c.a_3d = *rc::gen::arbitrary<bool>();
    c.dt_bias_2d = *rc::gen::arbitrary<bool>();
    c.l2norm = *rc::gen::arbitrary<bool>();
    c.force_flush = *rc::gen::arbitrary<bool>();
    c.envelope = *rc::gen::arbitrary<bool>();
    if (*rc::gen::arbitrary<bool>()) c.lower_bound = -*rc::gen::element(0.5, 1.0, 2.0, 5.0, 10.0);
    c.pad_fraction = *rc::gen::element(0.0, 0.25, 0.5);
    c.flush_prob = *rc::gen::element(0.0, 0.1, 0.3, 0.6);
    c.random_cursors = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
    c.values = *rc::gen::weightedElement<ValueMode>({{4, ValueMode::WellConditioned}, {1, ValueMode::Adversarial}});
    c.seed = *rc::gen::arbitrary<uint64_t>();
    // Fit the budget: fewer tokens first (keeping a few), then fewer rows, then GQA heads.
    while (rollout_work(c) > work_budget) {
      if (c.steps > 8) c.steps = c.steps * 2 / 3;
      else if (c.B > 1) c.slots -= c.B - c.B / 2, c.B /= 2;
      else if (c.HV > c.H) c.HV /= 2;
      else if (c.steps > 1) c.steps /= 2;
      else break;
    }
    return c;
  });
}

}  // namespace kda::testing
