#include "fuzz/case_decoder.hpp"

#include <array>

namespace kda::fuzz {
namespace {

ScalarType float_dtype(FuzzedDataProvider& p) {
  constexpr std::array<ScalarType, 3> t = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  return t[p.ConsumeIntegralInRange<std::size_t>(0, 2)];
}

}  // namespace

CaseConfig decode_case(FuzzedDataProvider& p, const CaseLimits& lim) {
  CaseConfig c;
  c.B = p.ConsumeIntegralInRange<int64_t>(1, lim.max_B);
  c.H = p.ConsumeIntegralInRange<int64_t>(1, lim.max_H);
  c.HV = c.H << p.ConsumeIntegralInRange<int>(0, 2);
  c.K = int64_t{1} << p.ConsumeIntegralInRange<int64_t>(0, lim.max_log2_K);
  c.V = int64_t{1} << p.ConsumeIntegralInRange<int64_t>(0, lim.max_log2_V);
  c.L = p.ConsumeIntegralInRange<int64_t>(1, lim.max_L);
  c.slots = c.B + p.ConsumeIntegralInRange<int64_t>(0, lim.max_extra_slots);
  c.act_dtype = float_dtype(p);
  c.state_dtype = float_dtype(p);
  c.ring_dtype = float_dtype(p);
  c.out_dtype = float_dtype(p);
  c.index_dtype = p.ConsumeBool() ? ScalarType::Int64 : ScalarType::Int32;
  c.a_3d = p.ConsumeBool();
  c.dt_bias_2d = p.ConsumeBool();
  c.l2norm = p.ConsumeBool();
  c.force_flush = p.ConsumeBool();
  c.envelope = p.ConsumeBool();
  if (p.ConsumeBool()) c.lower_bound = -p.ConsumeFloatingPointInRange<double>(0.0, 16.0);
  else c.lower_bound.reset();
  c.steps = p.ConsumeIntegralInRange<int64_t>(1, lim.max_steps);
  c.pad_fraction = p.ConsumeProbability<double>();
  c.flush_prob = p.ConsumeProbability<double>();
  c.random_cursors = p.ConsumeBool();
  c.values = p.ConsumeBool() ? ValueMode::Adversarial : ValueMode::WellConditioned;
  c.seed = p.ConsumeIntegral<uint64_t>();
  while (rollout_work(c) > lim.work_budget) {
    if (c.steps > 4) c.steps = c.steps * 2 / 3;
    else if (c.B > 1) c.slots -= c.B - c.B / 2, c.B /= 2;
    else if (c.HV > c.H) c.HV /= 2;
    else if (c.K >= c.V && c.K > 1) c.K /= 2;
    else if (c.V > 1) c.V /= 2;
    else if (c.steps > 1) c.steps /= 2;
    else break;
  }
  return c;
}

}  // namespace kda::fuzz
