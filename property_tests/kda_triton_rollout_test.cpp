// THE KEY PROPERTY of kda_triton_replayssm (circular-replay.md), checked after EVERY step of a
// rollout of each legal combination of ring variants (linear, circular, linear + prefix gates,
// circular + prefix gates, circular + prefix gates + pre-decayed keys): the rebuild formula
// applied to initial_state, the rings and the advanced cursor (next write_pos, next cache_base
// by the caller's rule) gives the plain KDA recurrence's state after the token, and the
// outputs are the recurrence's. L on and off the powers of two (L = 1 where legal: every step a
// full checkpoint), random initial bases, forced flushes and a final all-forced step, padding
// rows. The rebuild (prefixes as stored or summed, raw or pre-decayed keys) and the caller's
// rule are written here from the spec page, sharing nothing with the reference's ring code.
// Negative tests, so that the check can fail: the linear caller rule on a circular ring, and a
// prefix ring read as raw gates, each break the property.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "engine/description/operator.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/rounding.hpp"

namespace kda::test {
namespace {

using reference::Matrix;

struct Variant {
  const char* name;
  bool circular, prefix, predecayed;
};
constexpr Variant kVariants[] = {{"linear", false, false, false},
                                 {"circular", true, false, false},
                                 {"linear+prefix", false, true, false},
                                 {"circular+prefix", true, true, false},
                                 {"circular+prefix+predecay", true, true, true}};

// S[:, c] = S0[:, c] exp(total[c]) + sum_{j<w} d_j kt_j[c], record j at phys(j) = (base + j)
// mod L (circular) or j; prefix_j the stored prefix (prefix ring, read as such unless
// `prefix_as_raw`) or the running sum of raw gates; kt_j = k_j exp(total - prefix_j), or a
// pre-decayed k_ring_j exp(total).
Matrix<double> spec_rebuild(const CaseTensors& t, int64_t slot, int64_t hv, int64_t w, int64_t base,
                            bool prefix_as_raw = false) {
  const CaseConfig& c = t.config;
  const int64_t h = hv / (c.HV / c.H);
  const auto phys = [&](int64_t j) { return c.circular ? (base + j) % c.L : j; };
  const bool stored_prefix = c.prefix_gates && !prefix_as_raw;
  Matrix<double> prefix = Matrix<double>::Zero(w, c.K);
  for (int64_t j = 0; j < w; ++j)
    for (int64_t k = 0; k < c.K; ++k) {
      const double g = t.g_cache.get({slot, hv, phys(j), k});
      prefix(j, k) = stored_prefix || j == 0 ? g : prefix(j - 1, k) + g;
    }
  Matrix<double> S(c.V, c.K);
  for (int64_t k = 0; k < c.K; ++k) {
    const double total = w ? prefix(w - 1, k) : 0.0;
    for (int64_t v = 0; v < c.V; ++v) S(v, k) = t.initial_state.get({slot, hv, v, k}) * std::exp(total);
    for (int64_t j = 0; j < w; ++j) {
      const double kt = t.k_cache.get({slot, h, phys(j), k}) *
                        std::exp(c.predecayed_keys ? total : total - prefix(j, k));
      for (int64_t v = 0; v < c.V; ++v) S(v, k) += t.d_cache.get({slot, hv, phys(j), v}) * kt;
    }
  }
  return S;
}

double relative(const Matrix<double>& got, const Matrix<double>& want) {
  return (got - want).norm() / std::max(want.norm(), 1e-30);
}

struct Outcome {
  double worst_state = 0, worst_out = 0;
  int64_t history_steps = 0, full_steps = 0, appends = 0, wrapped = 0;
};

struct Options {
  bool circular_rule = true;   // the spec's caller rule; false: the linear one (cursor 0 after a natural flush)
  bool prefix_as_raw = false;  // the rebuild reads a prefix ring as raw gates
};

// A float32 rollout (the reference in float64 arithmetic, stores rounded to float32).
Outcome rollout(const Variant& var, int64_t L, uint64_t seed, Options opt = {}) {
  CaseConfig c;
  c.B = 4, c.H = 1, c.HV = 2, c.K = 32, c.V = 16, c.L = L, c.slots = 5;
  c.act_dtype = c.state_dtype = c.ring_dtype = c.out_dtype = ScalarType::Float32;
  c.circular = var.circular, c.prefix_gates = var.prefix, c.predecayed_keys = var.predecayed;
  if (var.predecayed) c.H = c.HV = 2, c.lower_bound = -2.0;
  c.steps = 3 * L + 5;
  c.flush_prob = 0.15;
  c.pad_fraction = 0.25;
  c.seed = seed;
  const engine::OperatorDescription& op = engine::find_operator("kda_triton_replayssm");
  c = op.fit_case(c);
  CaseTensors t = materialize_replayssm_case(c);
  const Dims dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots};
  const auto base_of = [&](int64_t row) { return c.circular ? static_cast<int64_t>(t.cache_base->get({row})) : 0; };
  reference::PlainState<double> truth(dims);
  for (int64_t row = 0; row < c.B; ++row) {
    const auto slot = static_cast<int64_t>(t.ssm_state_indices.get({row}));
    if (slot < 0) continue;
    for (int64_t hv = 0; hv < c.HV; ++hv)
      truth.at(slot, hv) = spec_rebuild(t, slot, hv, static_cast<int64_t>(t.write_pos.get({row})), base_of(row),
                                        opt.prefix_as_raw);
  }
  auto params = reference::load_params<double>(t.args(), dims);
  if (var.predecayed) params.beta_dtype = ScalarType::Float32;  // that path keeps sigmoid(b) in float32
  Outcome o;
  for (int64_t token = 0; token < c.steps; ++token) {
    if (token > 0) fill_token(t, token);
    if (token == c.steps - 1)  // a final all-forced step: every checkpoint is the plain state
      for (int64_t row = 0; row < c.B; ++row) t.force_flush->set({row}, 1);
    const Matrix<double> want = reference::plain_step(truth, params, reference::load_token<double>(t.args(), dims));
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
      const auto w = static_cast<int64_t>(t.write_pos.get({row}));
      const int64_t base = base_of(row);
      const bool forced = t.force_flush->get({row}) != 0, natural = w == L - 1;
      int64_t next_w = w + 1, next_base = base;  // an append
      if (forced || (natural && (L == 1 || !c.circular))) {
        next_w = 0, next_base = 0, ++o.full_steps;
      } else if (natural) {
        ++o.history_steps;
        next_w = opt.circular_rule ? 1 : 0;
        next_base = opt.circular_rule ? (base + w) % L : base;
      } else {
        ++o.appends;
        o.wrapped += c.circular && base + w >= L;
      }
      t.write_pos.set({row}, static_cast<double>(next_w));
      if (c.circular) t.cache_base->set({row}, static_cast<double>(next_base));
      for (int64_t hv = 0; hv < c.HV; ++hv)
        o.worst_state = std::max(o.worst_state, relative(spec_rebuild(t, slot, hv, next_w, next_base, opt.prefix_as_raw),
                                                         truth.at(slot, hv)));
    }
  }
  return o;
}

// float32 stores over at most ~50 tokens of well-conditioned states: far below 1e-4. Pre-decayed
// keys carry exp(|prefix|) <= e^(2(L-1)) in the ring, whose float32 rounding the rebuild scales
// back: the same relative error.
constexpr double kFloat32Rollout = 1e-4;

TEST(KdaTritonRollout, EveryStepRebuildsThePlainStateThroughTheAdvancedCursor) {
  for (const Variant& var : kVariants) {
    Outcome all;
    const std::vector<int64_t> lengths = var.predecayed ? std::vector<int64_t>{2, 3, 4, 5, 7, 16}
                                                        : std::vector<int64_t>{1, 2, 3, 4, 5, 6, 8};
    for (const int64_t L : lengths)
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        const Outcome o = rollout(var, L, seed);
        EXPECT_LT(o.worst_state, kFloat32Rollout) << var.name << " L=" << L << " seed=" << seed;
        EXPECT_LT(o.worst_out, kFloat32Rollout) << var.name << " L=" << L << " seed=" << seed;
        if (L == 1) { EXPECT_EQ(o.history_steps, 0) << "L = 1 never takes the history path"; }
        all.worst_state = std::max(all.worst_state, o.worst_state), all.worst_out = std::max(all.worst_out, o.worst_out);
        all.history_steps += o.history_steps, all.full_steps += o.full_steps, all.appends += o.appends,
            all.wrapped += o.wrapped;
      }
    // Each variant reached every kind of step its ring has, and windows that wrap.
    EXPECT_GT(all.full_steps, 30) << var.name;
    EXPECT_GT(all.appends, 100) << var.name;
    if (var.circular) { EXPECT_GT(all.history_steps, 30) << var.name; }
    if (var.circular) { EXPECT_GT(all.wrapped, 30) << var.name; }
    std::printf("%-26s worst state %.3e (%.4f of the bound), worst out %.3e (%.4f); %lld history, %lld full, "
                "%lld appends (%lld wrapped)\n",
                var.name, all.worst_state, all.worst_state / kFloat32Rollout, all.worst_out,
                all.worst_out / kFloat32Rollout, static_cast<long long>(all.history_steps),
                static_cast<long long>(all.full_steps), static_cast<long long>(all.appends),
                static_cast<long long>(all.wrapped));
  }
}

TEST(KdaTritonRollout, TheLinearCallerRuleOnACircularRingBreaksIt) {
  for (const Variant& var : kVariants) {
    if (!var.circular) continue;
    int broken = 0, with_history = 0;
    for (const int64_t L : {2, 3, 5})
      for (uint64_t seed = 1; seed <= 4; ++seed) {
        const Outcome o = rollout(var, L, seed, {.circular_rule = false});
        if (o.history_steps == 0) continue;
        ++with_history;
        broken += o.worst_state > 1e-2;
      }
    ASSERT_GT(with_history, 6) << var.name;
    EXPECT_EQ(broken, with_history) << var.name << ": the linear rule after a history checkpoint loses the token";
  }
}

TEST(KdaTritonRollout, APrefixRingReadAsRawGatesBreaksIt) {
  for (const Variant& var : kVariants) {
    if (!var.prefix) continue;
    int broken = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) broken += rollout(var, 5, seed, {.prefix_as_raw = true}).worst_state > 1e-2;
    EXPECT_EQ(broken, 4) << var.name;
  }
}

}  // namespace
}  // namespace kda::test
