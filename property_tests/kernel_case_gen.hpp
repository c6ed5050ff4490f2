// RapidCheck generator of GPU test cases: every dtype combination, int32/int64 indices, 2-D/3-D
// a, 1-D/2-D dt_bias, GQA, both gates, with/without L2 norm and force_flush, envelope
// (padded-slot state, page-major rings), padding rows, divergent cursors, natural and forced
// flushes, K and V from 1 to 256 (several K tiles, several V tiles, partial tensor-core
// tiles), L from 1 to 70 (several ring chunks). Sizes are capped by a work budget so the
// CPU reference keeps up; shrinking goes towards small shapes.
#pragma once
#include <rapidcheck.h>

#include <algorithm>

#include "cases/case_config.hpp"

namespace kda::testing {

inline rc::Gen<CaseConfig> gen_gpu_case(double work_budget = 2e7) {
  return rc::gen::exec([work_budget] {
    const auto dtype = [] {
      return *rc::gen::element(ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16);
    };
    // Shapes are drawn at full size whatever RapidCheck's size parameter (which would keep
    // early cases tiny); shrinking still moves them towards the small end.
    const auto full = [](auto gen) { return *rc::gen::resize(100, gen); };
    const auto pow2 = [&full](int lo_exp, int hi_exp) { return int64_t{1} << full(rc::gen::inRange(lo_exp, hi_exp + 1)); };
    CaseConfig c;
    c.act_dtype = dtype();
    c.state_dtype = dtype();
    c.ring_dtype = dtype();
    c.out_dtype = dtype();
    c.index_dtype = *rc::gen::element(ScalarType::Int32, ScalarType::Int64);
    c.B = full(rc::gen::inRange<int64_t>(1, 9));
    c.H = full(rc::gen::inRange<int64_t>(1, 4));
    c.HV = c.H * *rc::gen::element(int64_t{1}, int64_t{2}, int64_t{4});
    c.K = full(rc::gen::weightedOneOf<int64_t>({{1, rc::gen::just<int64_t>(1) }, {1, rc::gen::just<int64_t>(2)},
                                            {12, rc::gen::map(rc::gen::inRange(2, 8), [](int e) { return int64_t{1} << e; })},
                                            {2, rc::gen::just<int64_t>(256)}}));
    c.V = pow2(0, 7);
    c.L = full(rc::gen::weightedOneOf<int64_t>({{8, rc::gen::inRange<int64_t>(1, 17)}, {1, rc::gen::inRange<int64_t>(17, 71)}}));
    c.slots = c.B + full(rc::gen::inRange<int64_t>(0, 4));
    c.a_3d = *rc::gen::arbitrary<bool>();
    c.dt_bias_2d = *rc::gen::arbitrary<bool>();
    c.l2norm = *rc::gen::arbitrary<bool>();
    c.force_flush = *rc::gen::arbitrary<bool>();
    c.envelope = *rc::gen::arbitrary<bool>();
    if (*rc::gen::arbitrary<bool>()) c.lower_bound = -*rc::gen::element(1.0, 5.0, 10.0);
    c.steps = full(rc::gen::inRange<int64_t>(1, std::min<int64_t>(2 * c.L + 2, 24) + 1));
    c.pad_fraction = *rc::gen::element(0.0, 0.25, 0.5);
    c.flush_prob = *rc::gen::element(0.0, 0.2, 0.5);
    c.random_cursors = *rc::gen::arbitrary<bool>();
    c.values = *rc::gen::weightedElement<ValueMode>({{4, ValueMode::WellConditioned}, {1, ValueMode::Adversarial}});
    c.seed = *rc::gen::arbitrary<uint64_t>();
    // Fit the budget: fewer tokens first, then smaller heads, then fewer rows.
    while (rollout_work(c) > work_budget) {
      if (c.steps > 4) c.steps /= 2;
      else if (c.K >= c.V && c.K > 8) c.K /= 2;
      else if (c.V > 8) c.V /= 2;
      else if (c.B > 1) c.slots -= c.B - c.B / 2, c.B /= 2;
      else if (c.HV > c.H) c.HV = c.H;
      else break;
    }
    return c;
  });
}

}  // namespace kda::testing
