// THE KEY PROPERTY of a circular ring (circular-replay.md), checked after EVERY step of a
// gdn_replayssm rollout: the rebuild formula applied to initial_state, the rings and the
// advanced cursor (next write_pos, next cache_base by the caller's rule) gives the plain GDN
// recurrence's state after the token, and the outputs are the recurrence's. L on and off the
// powers of two (1 included: every step a full checkpoint), random initial bases, forced
// flushes and a final all-forced step, grouped heads, padding rows. The rebuild and the
// caller's rule are written here from the spec page, sharing nothing with the reference's ring
// code; and the negative test: the linear caller rule (cursor 0 after a natural flush) on a
// circular ring breaks the property, so the check can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "engine/description/operator.hpp"
#include "operators/gdn_replayssm/plain_recurrence.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "reference/rounding.hpp"

namespace kda::gdn::test {
namespace {

using reference::Matrix;

// S = S0 exp(total) + sum_{j<w} exp(total - prefix_j) d_j k_j^T, record j at (base + j) mod L.
Matrix<double> spec_rebuild(const CaseTensors& t, int64_t slot, int64_t hv, int64_t w, int64_t base) {
  const CaseConfig& c = t.config;
  const int64_t h = hv / (c.HV / c.H);
  std::vector<double> prefix(static_cast<std::size_t>(w));
  double total = 0;
  for (int64_t j = 0; j < w; ++j) total += t.g_cache.get({slot, hv, (base + j) % c.L}), prefix[j] = total;
  Matrix<double> S(c.V, c.K);
  for (int64_t v = 0; v < c.V; ++v)
    for (int64_t k = 0; k < c.K; ++k) S(v, k) = t.initial_state.get({slot, hv, v, k}) * std::exp(total);
  for (int64_t j = 0; j < w; ++j) {
    const int64_t p = (base + j) % c.L;
    const double decay = std::exp(total - prefix[j]);
    for (int64_t v = 0; v < c.V; ++v)
      for (int64_t k = 0; k < c.K; ++k)
        S(v, k) += decay * t.d_cache.get({slot, hv, p, v}) * t.k_cache.get({slot, h, p, k});
  }
  return S;
}

double relative(const Matrix<double>& got, const Matrix<double>& want) {
  const double scale = std::max(want.norm(), 1e-30);
  return (got - want).norm() / scale;
}

struct Outcome {
  double worst_state = 0, worst_out = 0;
  int64_t history_steps = 0, full_steps = 0, appends = 0, wrapped = 0;
};

// A float32 rollout (the reference in float64 arithmetic, stores rounded to float32), the
// caller's rule circular (the spec's table) or, for the negative test, linear.
Outcome rollout(int64_t L, uint64_t seed, bool circular_rule) {
  CaseConfig c;
  c.B = 4, c.H = 1, c.HV = 2, c.K = 32, c.V = 16, c.L = L, c.slots = 5;
  c.act_dtype = c.state_dtype = c.ring_dtype = c.out_dtype = ScalarType::Float32;
  c.index_dtype = ScalarType::Int32;
  c.gate_per_head = true;
  c.circular = true;
  c.steps = 3 * L + 5;
  c.flush_prob = 0.15;
  c.pad_fraction = 0.25;
  c.seed = seed;
  const engine::OperatorDescription& op = engine::find_operator("gdn_replayssm");
  CaseTensors t = materialize_replayssm_case(op.fit_case(c));
  const Dims dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots};
  reference::PlainState<double> truth(dims);
  for (int64_t row = 0; row < c.B; ++row) {
    const auto slot = static_cast<int64_t>(t.ssm_state_indices.get({row}));
    if (slot < 0) continue;
    for (int64_t hv = 0; hv < c.HV; ++hv)
      truth.at(slot, hv) = spec_rebuild(t, slot, hv, static_cast<int64_t>(t.write_pos.get({row})),
                                        static_cast<int64_t>(t.cache_base->get({row})));
  }
  Outcome o;
  for (int64_t token = 0; token < c.steps; ++token) {
    if (token > 0) fill_token(t, token);
    if (token == c.steps - 1)  // a final all-forced step: every checkpoint is the plain state
      for (int64_t row = 0; row < c.B; ++row) t.force_flush->set({row}, 1);
    const Matrix<double> want = plain_gdn_recurrence(truth, t.args(), dims);
    op.reference_step(op.bind(t.args()), reference::Rounding::Off);
    for (int64_t row = 0; row < c.B; ++row)
      for (int64_t hv = 0; hv < c.HV; ++hv) {
        Matrix<double> got(1, c.V), expected(1, c.V);
        for (int64_t v = 0; v < c.V; ++v) got(0, v) = t.out.get({row, 0, hv, v}), expected(0, v) = want(row, hv * c.V + v);
        o.worst_out = std::max(o.worst_out, relative(got, expected));
      }
    for (int64_t row = 0; row < c.B; ++row) {
      const auto slot = static_cast<int64_t>(t.ssm_state_indices.get({row}));
      if (slot < 0) continue;
      const auto w = static_cast<int64_t>(t.write_pos.get({row})), base = static_cast<int64_t>(t.cache_base->get({row}));
      const bool forced = t.force_flush->get({row}) != 0, natural = w == L - 1;
      int64_t next_w = w + 1, next_base = base;  // an append
      if (forced || (natural && L == 1)) {
        next_w = 0, next_base = 0, ++o.full_steps;
      } else if (natural) {
        ++o.history_steps;
        next_w = circular_rule ? 1 : 0;
        next_base = circular_rule ? (base + w) % L : base;
      } else {
        ++o.appends;
        o.wrapped += base + w >= L;
      }
      t.write_pos.set({row}, static_cast<double>(next_w));
      t.cache_base->set({row}, static_cast<double>(next_base));
      for (int64_t hv = 0; hv < c.HV; ++hv)
        o.worst_state = std::max(o.worst_state, relative(spec_rebuild(t, slot, hv, next_w, next_base), truth.at(slot, hv)));
    }
  }
  // After the all-forced step the checkpoints are the plain states themselves.
  for (int64_t row = 0; row < c.B; ++row) {
    const auto slot = static_cast<int64_t>(t.ssm_state_indices.get({row}));
    if (slot >= 0)
      for (int64_t hv = 0; hv < c.HV; ++hv) o.worst_state = std::max(o.worst_state, relative(spec_rebuild(t, slot, hv, 0, 0), truth.at(slot, hv)));
  }
  return o;
}

// float32 stores over at most ~50 tokens of well-conditioned states: far below 1e-4.
constexpr double kFloat32Rollout = 1e-4;

TEST(GdnCircularRollout, EveryStepRebuildsThePlainStateThroughTheAdvancedCursor) {
  Outcome all;
  for (const int64_t L : {1, 2, 3, 4, 5, 6, 8})
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const Outcome o = rollout(L, seed, true);
      EXPECT_LT(o.worst_state, kFloat32Rollout) << "L=" << L << " seed=" << seed;
      EXPECT_LT(o.worst_out, kFloat32Rollout) << "L=" << L << " seed=" << seed;
      if (L == 1) { EXPECT_EQ(o.history_steps, 0) << "L = 1 never takes the history path"; }
      all.worst_state = std::max(all.worst_state, o.worst_state), all.worst_out = std::max(all.worst_out, o.worst_out);
      all.history_steps += o.history_steps, all.full_steps += o.full_steps, all.appends += o.appends, all.wrapped += o.wrapped;
    }
  // The rollouts reached every kind of step, and windows that wrap.
  EXPECT_GT(all.history_steps, 50);
  EXPECT_GT(all.full_steps, 50);
  EXPECT_GT(all.wrapped, 50);
  std::printf("circular rollouts: worst state %.3e, worst out %.3e (relative); %lld history, %lld full, %lld appends "
              "(%lld wrapped)\n",
              all.worst_state, all.worst_out, static_cast<long long>(all.history_steps),
              static_cast<long long>(all.full_steps), static_cast<long long>(all.appends),
              static_cast<long long>(all.wrapped));
}

TEST(GdnCircularRollout, TheLinearCallerRuleOnACircularRingBreaksIt) {
  int broken = 0, with_history = 0;
  for (const int64_t L : {2, 3, 5})
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const Outcome o = rollout(L, seed, false);
      if (o.history_steps == 0) continue;
      ++with_history;
      broken += o.worst_state > 1e-2;
    }
  ASSERT_GT(with_history, 6);
  EXPECT_EQ(broken, with_history) << "the linear rule after a history checkpoint loses the token from the state";
}

}  // namespace
}  // namespace kda::gdn::test
