// kda_triton_replayssm's golden cases: one per ring variant the wrapper's KDA path accepts
// (linear, circular, linear + prefix gates, circular + prefix gates, circular + prefix gates +
// pre-decayed keys, spec/circular-replay.md), small shapes (K = 32, the smallest power of two
// past G32 at nk = 2; V = 16), `a` [B, HV, K] and dt_bias [HV, K] (K17-K19), int32 indices.
// Rollouts of several tokens carry each variant through history checkpoints, forced
// checkpoints and wrapped windows; L off the powers of two (3, 5) where a wrap by `& (L-1)`
// would show; the pre-decay envelope's edge L = 16 with (L - 1) |lower_bound| = 80. One error
// case: the Helion wrapper's flat gate, which this wrapper refuses (K17).
#include "operators/kda_triton_replayssm/golden_cases.hpp"

#include "operators/replayssm_family/golden_features.hpp"

namespace kda::golden {
namespace {

using F = Feature;
constexpr ScalarType kF32 = ScalarType::Float32, kBF16 = ScalarType::BFloat16;

// A small one-step case of this operator: B=3 rows, one query head, two value heads, K=32,
// V=16, L=3, 4 slots, per-K gates laid out as the wrapper wants.
CaseConfig small(uint64_t seed) {
  CaseConfig c;
  c.B = 3; c.H = 1; c.HV = 2; c.K = 32; c.V = 16; c.L = 3; c.slots = 4;
  c.pad_fraction = 0.34; c.flush_prob = 0.3; c.random_cursors = true; c.steps = 1;
  c.a_3d = c.dt_bias_2d = true;
  c.index_dtype = ScalarType::Int32;
  c.seed = seed;
  return c;
}

// The pre-decay envelope (P2-P9): H = HV, float32 state, a bounded gate.
CaseConfig predecayed(CaseConfig c, int64_t L, double lower_bound) {
  c.H = c.HV = 2; c.L = L;
  c.circular = c.prefix_gates = c.predecayed_keys = true;
  c.state_dtype = kF32;
  c.lower_bound = lower_bound;
  return c;
}

GoldenSpec spec(std::string name, std::string purpose, const CaseConfig& c, std::vector<Feature> features = {}) {
  GoldenSpec s;
  s.name = std::move(name);
  s.purpose = "KDA Triton ReplaySSM: " + purpose;
  s.config = c;
  s.features = std::move(features);
  // Seeds are searched from the config's own (in steps of 97), so that a case claiming row
  // patterns shows them.
  if (!s.features.empty()) s.config.seed = seed_showing(s, c.seed, 97);
  return s;
}

void add_variant_cases(std::vector<GoldenSpec>& out) {
  {
    CaseConfig c = small(4001);
    c.B = 4; c.slots = 5; c.L = 4; c.pad_fraction = 0.25; c.flush_prob = 0.2;
    out.push_back(spec("linear_step", "one step of the linear ring: appends, flushes and a padding row", c,
                       {F::Append, F::Padding}));
  }
  {
    CaseConfig c = small(4011);
    c.B = 4; c.slots = 5; c.L = 5; c.steps = 6; c.flush_prob = 0.15; c.circular = true;
    out.push_back(spec("circular_rollout",
                       "a 6-token circular rollout (L = 5): history checkpoints (the state before the token stored, "
                       "the record appended), windows that wrap past slot L-1, cache_base advanced by the caller",
                       c, {F::HistoryCheckpoint, F::WrappedWindow, F::Append}));
  }
  {
    CaseConfig c = small(4021);
    c.H = 2; c.HV = 4; c.L = 3; c.steps = 6; c.prefix_gates = true;
    out.push_back(spec("linear_prefix_rollout",
                       "a 6-token linear rollout with prefix gates (L = 3, GQA 2): the g ring holds each record's "
                       "window prefix, inclusive, restarting after every flush",
                       c, {F::Append, F::NaturalFlush}));
  }
  {
    CaseConfig c = small(4031);
    c.L = 5; c.steps = 8; c.circular = c.prefix_gates = true;
    c.act_dtype = c.ring_dtype = c.out_dtype = kBF16;
    out.push_back(spec("circular_prefix_rollout",
                       "an 8-token circular rollout with prefix gates (L = 5, bfloat16 activations, rings and out): "
                       "prefixes restart with the history token's own gate",
                       c, {F::HistoryCheckpoint, F::WrappedWindow}));
  }
  {
    CaseConfig c = predecayed(small(4041), 4, -5.0);
    c.steps = 8; c.act_dtype = c.out_dtype = kBF16; c.ring_dtype = kF32;
    out.push_back(spec("predecayed_rollout",
                       "an 8-token rollout with pre-decayed keys (circular, prefix gates, L = 4, lower_bound -5, "
                       "bfloat16 activations with float32 rings): k_ring = k exp(-prefix), scaled by exp(total) once "
                       "in the rebuild; beta kept in float32",
                       c, {F::HistoryCheckpoint, F::Append}));
  }
  {
    CaseConfig c = predecayed(small(4051), 16, -80.0 / 15.0);
    c.steps = 4; c.act_dtype = c.ring_dtype = c.out_dtype = kBF16; c.random_cursors = true; c.flush_prob = 0;
    out.push_back(spec("predecayed_l16_edge",
                       "pre-decayed keys at the envelope's edge: L = 16 with (L - 1) |lower_bound| = 80 and bfloat16 "
                       "rings (k exp(-prefix) up to e^80 must stay finite)",
                       c, {F::Append}));
  }
}

void add_error_cases(std::vector<GoldenSpec>& out) {
  GoldenSpec s = spec("error_flat_gate", "K17: a flat [B, HV*K] gate, as the Helion wrapper takes it", small(4101));
  s.error_input = "K17";
  s.error_variant = 0;
  out.push_back(std::move(s));
}

}  // namespace
}  // namespace kda::golden

namespace kda::engine {

std::vector<golden::GoldenSpec> kda_triton_replayssm_golden_cases() {
  std::vector<golden::GoldenSpec> out;
  golden::add_variant_cases(out);
  golden::add_error_cases(out);
  return out;
}

}  // namespace kda::engine
