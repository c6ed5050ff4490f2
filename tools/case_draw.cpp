#include "tools/case_draw.hpp"

#include <algorithm>

#include "cases/rng.hpp"

namespace kda::cli {
namespace {

// A stream of its own, apart from the ones the case generator uses for tensors.
constexpr auto kDrawStream = static_cast<rng::Stream>(0xD7A3);

class Draw {
 public:
  Draw(uint64_t seed, uint64_t index) : r_(seed, kDrawStream, index) {}
  uint64_t below(uint64_t n) { return r_.below(next_++, n); }
  bool coin(double p = 0.5) { return r_.bernoulli(next_++, p); }
  template <class T, std::size_t N>
  T pick(const T (&options)[N]) { return options[below(N)]; }
  uint64_t bits() { return r_.bits(next_++); }

 private:
  rng::Counter r_;
  uint64_t next_ = 0;
};

}  // namespace

CaseConfig draw_case(uint64_t seed, uint64_t index, double work_budget) {
  Draw d(seed, index);
  const ScalarType floats[] = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  CaseConfig c;
  c.act_dtype = d.pick(floats);
  c.state_dtype = d.pick(floats);
  c.ring_dtype = d.pick(floats);
  c.out_dtype = d.pick(floats);
  c.index_dtype = d.coin() ? ScalarType::Int32 : ScalarType::Int64;
  c.B = 1 + static_cast<int64_t>(d.below(8));
  c.H = 1 + static_cast<int64_t>(d.below(4));
  const int64_t groups[] = {1, 1, 2, 2, 4, 8};
  c.HV = c.H * d.pick(groups);
  // Powers of two, mostly 8..128 (several vector widths), sometimes 1..4 (degenerate heads).
  const int64_t dims[] = {1, 2, 4, 8, 16, 16, 32, 32, 64, 64, 128, 128};
  c.K = d.pick(dims);
  c.V = d.pick(dims);
  c.L = d.coin(0.85) ? 1 + static_cast<int64_t>(d.below(16)) : 17 + static_cast<int64_t>(d.below(24));
  c.slots = c.B + static_cast<int64_t>(d.below(4));
  c.a_3d = d.coin();
  c.dt_bias_2d = d.coin();
  c.l2norm = d.coin();
  c.force_flush = d.coin(0.75);
  c.envelope = d.coin(0.3);
  if (d.coin(0.3)) {
    const double bounds[] = {-1.0, -5.0, -10.0};
    c.lower_bound = d.pick(bounds);
  }
  c.steps = 1 + static_cast<int64_t>(d.below(static_cast<uint64_t>(std::min<int64_t>(2 * c.L + 2, 24))));
  const double pads[] = {0.0, 0.25, 0.5};
  c.pad_fraction = d.pick(pads);
  const double flushes[] = {0.0, 0.2, 0.5};
  c.flush_prob = d.pick(flushes);
  c.random_cursors = d.coin(0.7);
  c.values = d.coin(0.2) ? ValueMode::Adversarial : ValueMode::WellConditioned;
  c.seed = d.bits();
  // Fit the budget: fewer tokens first, then smaller heads, then fewer rows and heads.
  while (rollout_work(c) > work_budget) {
    if (c.steps > 4) c.steps /= 2;
    else if (c.K >= c.V && c.K > 8) c.K /= 2;
    else if (c.V > 8) c.V /= 2;
    else if (c.B > 1) c.slots -= c.B - c.B / 2, c.B /= 2;
    else if (c.HV > c.H) c.HV = c.H;
    else if (c.L > 4) c.L /= 2;
    else break;
  }
  return c;
}

}  // namespace kda::cli
