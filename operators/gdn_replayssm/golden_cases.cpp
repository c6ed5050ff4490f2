// gdn_replayssm's golden cases: one scalar gate per value head (`a` [B, HV], dt_bias [HV],
// g_cache [slots, HV, L]). Small shapes (K = 32, the smallest power of two this contract
// takes at nk = 2, and V = 16 or 32, mostly K != V) except the Qwen3-Next-like one (K = V =
// 128, L = 16, in bfloat16 to keep its file under a megabyte). Each claimed row pattern is
// found by a seed search (seed_showing) and checked again when the file is generated. Errors
// are the checks where this wrapper parts from kda_replayssm's (int64 indices, K = 16, key
// ring by HV, a per-key gate ring) and the harness's strided-gate extension, from
// gdn_replayssm_error_inputs(). The circular-ring cases claim history checkpoints and windows
// that wrap.
#include "operators/gdn_replayssm/golden_cases.hpp"

#include <fmt/format.h>

#include <array>

#include "operators/replayssm_family/golden_features.hpp"

namespace kda::golden {
namespace {

using F = Feature;
constexpr ScalarType kF32 = ScalarType::Float32, kBF16 = ScalarType::BFloat16, kF16 = ScalarType::Float16;

// A small one-step case: B=3 rows, one query head, two value heads, K=32, V=16, L=3, 4 slots,
// one gate per head, int32 indices (G25).
CaseConfig small(uint64_t seed) {
  CaseConfig c;
  c.B = 3; c.H = 1; c.HV = 2; c.K = 32; c.V = 16; c.L = 3; c.slots = 4;
  c.pad_fraction = 0.34; c.flush_prob = 0.3; c.random_cursors = true; c.steps = 1;
  c.gate_per_head = true;
  c.index_dtype = ScalarType::Int32;
  c.seed = seed;
  return c;
}

GoldenSpec spec(std::string name, std::string purpose, const CaseConfig& c, std::vector<Feature> features = {},
                std::map<int64_t, std::vector<int32_t>> forced = {}) {
  GoldenSpec s;
  s.name = std::move(name);
  s.purpose = "GDN ReplaySSM: " + purpose;
  s.config = c;
  s.features = std::move(features);
  s.forced = std::move(forced);
  // Seeds are searched from the config's own (in steps of 97), so that a case claiming row
  // patterns shows them.
  if (!s.features.empty()) s.config.seed = seed_showing(s, c.seed, 97);
  return s;
}

// Row patterns, grouped heads, gates, layouts and rollouts.
void add_step_cases(std::vector<GoldenSpec>& out) {
  {
    CaseConfig c = small(3006);
    c.B = 4; c.slots = 6; c.L = 4; c.pad_fraction = 0.25; c.flush_prob = 0;
    out.push_back(spec("append_natural_forced_padding",
                       "one step where one row appends, one flushes naturally (cursor L-1), one is forced to "
                       "flush and one is padding",
                       c, {F::Append, F::NaturalFlush, F::ForcedFlush, F::Padding}, {{0, {0, 0, 1, 0}}}));
  }
  {
    CaseConfig c = small(3004);
    c.B = 4; c.slots = 5; c.L = 6; c.pad_fraction = 0; c.flush_prob = 0;
    out.push_back(spec("divergent_cursors",
                       "four rows at four different cursors: each rebuild replays a different number of scalar "
                       "gates",
                       c, {F::DivergentCursors}));
  }
  {
    CaseConfig c = small(3011);
    c.B = 5; c.slots = 6; c.L = 4; c.pad_fraction = 0.4;
    out.push_back(spec("padding_rows", "padding rows (slot -1: out row zero, nothing else touched)", c,
                       {F::Padding, F::Append}));
  }
  for (int64_t ratio : {2, 8}) {
    CaseConfig c = small(3040 + ratio);
    c.H = ratio == 8 ? 1 : 2; c.HV = c.H * ratio; c.steps = 2; c.L = 4; c.flush_prob = 0.2;
    if (ratio == 8) c.state_dtype = kBF16;  // eight value heads' state: half the bytes
    out.push_back(spec(fmt::format("gqa_ratio_{}", ratio),
                       fmt::format("grouped heads HV/H = {} (H={}, HV={}): one key ring head per {} value "
                                   "heads, one gate per value head; two tokens{}",
                                   ratio, c.H, c.HV, ratio, ratio == 8 ? "; bfloat16 state" : ""),
                       c, {F::Append}));
  }
  {
    CaseConfig c = small(3051);
    c.lower_bound = -5.0; c.steps = 2; c.L = 4;
    out.push_back(spec("bounded_gate", "the bounded gate g = lower_bound * sigmoid(A x), lower_bound = -5 (two tokens)",
                       c, {F::Append}));
  }
  for (bool l2 : {true, false}) {
    CaseConfig c = small(l2 ? 3061 : 3062);
    c.l2norm = l2;
    out.push_back(spec(l2 ? "l2norm_on" : "l2norm_off",
                       l2 ? "use_qk_l2norm_in_kernel = true: q and k normalized in the step"
                          : "use_qk_l2norm_in_kernel = false: keys of norm ~1 given as is",
                       c, {F::Append}));
  }
  {
    CaseConfig c = small(3001);
    c.envelope = true; c.steps = 3; c.flush_prob = 0.25;
    out.push_back(spec("envelope_strided",
                       "strided layouts: slot-padded initial_state, row-padded mixed_qkv, a and b (stored compact, "
                       "strides in the metadata; three tokens; the rings must be contiguous, G19)",
                       c, {F::Append, F::NaturalFlush}));
  }
  {
    CaseConfig c = small(3101);
    c.H = 2; c.HV = 4; c.steps = 9; c.flush_prob = 0.25;
    out.push_back(spec("rollout_gqa_9_tokens",
                       "a 9-token rollout (L=3, GQA 2) through appends, natural and forced flushes and a padding "
                       "row, every token's outputs stored",
                       c, {F::Append, F::NaturalFlush, F::ForcedFlush, F::Padding}));
  }
  {
    // Wider than many a backend's envelope (the CPU example takes K and V up to 256): one that
    // excludes it must refuse it cleanly, one that takes it is judged on it.
    CaseConfig c = small(3151);
    c.B = 1; c.HV = 1; c.V = 512; c.L = 2; c.slots = 1; c.pad_fraction = 0; c.state_dtype = kBF16;
    out.push_back(spec("v512", "V = 512 (K = 32, one head, bfloat16 state): past the envelope of backends that stop at "
                               "V = 256, which must refuse it without writing",
                       c, {F::Append}));
  }
  {
    // Qwen3-Next's GDN layers: K = V = 128, two value heads per key head, L = 16 here; two
    // query heads instead of 16 and one row keep the file small (the bfloat16 state of one
    // slot is 128 KiB, stored twice).
    CaseConfig c = small(3201);
    c.B = 1; c.H = 2; c.HV = 4; c.K = 128; c.V = 128; c.L = 16; c.slots = 1; c.pad_fraction = 0;
    c.steps = 2; c.flush_prob = 0.5; c.act_dtype = c.state_dtype = c.ring_dtype = c.out_dtype = kBF16;
    out.push_back(spec("qwen3_next_like",
                       "Qwen3-Next-like heads: K = V = 128, HV/H = 2 (H=2, HV=4), L = 16, bfloat16 throughout; "
                       "two tokens of one row: an append, then a forced flush",
                       c, {F::Append, F::ForcedFlush}, {{0, {0}}, {1, {1}}}));
  }
}

// Dtype mixes the GDN layers run with: bfloat16 activations over float32 state and rings (and
// the reverse of it), float16 throughout, float32 throughout. Each appends and flushes, so
// every mix stores a ring record and a checkpoint.
void add_dtype_cases(std::vector<GoldenSpec>& out) {
  struct Mix {
    ScalarType act, state, ring, out;
  };
  const std::array<Mix, 5> mixes = {{{kBF16, kF32, kF32, kBF16},
                                     {kBF16, kBF16, kBF16, kBF16},
                                     {kF16, kF16, kF16, kF16},
                                     {kF32, kF32, kF32, kF32},
                                     {kF16, kF32, kBF16, kF32}}};
  int i = 0;
  for (const Mix& m : mixes) {
    CaseConfig c = small(3300 + i);
    c.act_dtype = m.act; c.state_dtype = m.state; c.ring_dtype = m.ring; c.out_dtype = m.out;
    if (i % 2 == 1) c.H = 2, c.HV = 4;
    if (i == 2) c.V = 32;
    out.push_back(spec(fmt::format("dtype_{}_{}_{}_{}", short_name(m.act), short_name(m.state), short_name(m.ring),
                                   short_name(m.out)),
                       fmt::format("dtype mix act={} state={} ring={} out={} (one step, H={}, HV={}, K={}, V={})",
                                   name_of(m.act), name_of(m.state), name_of(m.ring), name_of(m.out), c.H, c.HV, c.K,
                                   c.V),
                       c, {F::Append, i % 2 == 0 ? F::ForcedFlush : F::NaturalFlush}));
    ++i;
  }
}

// Circular rings (circular-replay.md): records at (cache_base + j) mod L, a natural flush a
// history checkpoint (the state BEFORE the token stored, the token's record appended), the
// caller advancing cache_base; prefix_gate_cache accepted and ignored on this path. L off the
// powers of two (3, 5) so that a wrap by `& (L-1)` shows.
void add_ring_variant_cases(std::vector<GoldenSpec>& out) {
  {
    CaseConfig c = small(3501);
    c.B = 4; c.slots = 5; c.L = 5; c.pad_fraction = 0.25; c.flush_prob = 0; c.circular = true;
    out.push_back(spec("circular_history_wrap",
                       "one step of a circular ring (L = 5): a row at cursor L-1 takes a history checkpoint "
                       "(checkpoint = the state before the token, record appended), a window wraps past slot L-1, "
                       "a padding row holds a cache_base no ring has",
                       c, {F::HistoryCheckpoint, F::WrappedWindow, F::Append, F::Padding}));
  }
  {
    CaseConfig c = small(3511);
    c.H = 2; c.HV = 4; c.L = 3; c.steps = 8; c.flush_prob = 0.2; c.circular = true;
    out.push_back(spec("circular_rollout_8_tokens",
                       "an 8-token circular rollout (L = 3, GQA 2): history checkpoints, forced (full) checkpoints and "
                       "appends, cache_base advanced by the caller's rule between tokens",
                       c, {F::HistoryCheckpoint, F::ForcedFlush, F::WrappedWindow, F::Append}));
  }
  {
    CaseConfig c = small(3521);
    c.L = 4; c.steps = 3; c.circular = true; c.prefix_gates = true;
    c.act_dtype = c.state_dtype = c.ring_dtype = c.out_dtype = kBF16;
    out.push_back(spec("circular_prefix_flag_ignored",
                       "circular ring with prefix_gate_cache = True, which this path ignores (the g ring holds raw "
                       "gates): the same results as without it; bfloat16 throughout, three tokens",
                       c, {F::Append, F::HistoryCheckpoint}));
  }
}

GoldenSpec error_spec(std::string name, std::string purpose, const CaseConfig& c, std::string input, uint32_t variant) {
  GoldenSpec s = spec(std::move(name), std::move(purpose), c);
  s.error_input = std::move(input);
  s.error_variant = variant;
  return s;
}

// The error inputs' variants named here: X-GDN-GATE-STRIDES #0 `a` of last stride 2, #1
// dt_bias of stride 2; G21 #0 k_cache by HV heads; G22 #0 a KDA-shaped g_cache; G23 #0
// bfloat16 g_cache; G25 #0 int64 indices; G32 #0 K = 16.
void add_error_cases(std::vector<GoldenSpec>& out) {
  CaseConfig gqa = small(3401);
  gqa.H = 2; gqa.HV = 4;
  out.push_back(error_spec("error_a_strided",
                           "X-GDN-GATE-STRIDES: `a` with last stride 2 (every other column of a projection); the "
                           "wrapper does not check it and its kernel reads a wrong gate",
                           gqa, "X-GDN-GATE-STRIDES", 0));
  out.push_back(error_spec("error_dt_bias_strided", "X-GDN-GATE-STRIDES: dt_bias with stride 2, read as compact by the kernel",
                           small(3402), "X-GDN-GATE-STRIDES", 1));
  out.push_back(error_spec("error_k_cache_hv_heads",
                           "G21: k_cache allocated with HV=4 value heads instead of H=2 query heads (GQA)", gqa, "G21", 0));
  out.push_back(error_spec("error_g_cache_per_key", "G22: g_cache shaped as kda_replayssm's [slots, HV, L, K]",
                           small(3403), "G22", 0));
  out.push_back(error_spec("error_g_cache_bfloat16", "G23: g_cache in bfloat16 (the gate ring must be float32)",
                           small(3404), "G23", 0));
  out.push_back(error_spec("error_int64_indices",
                           "G25: int64 ssm_state_indices (kda_replayssm accepts them; this wrapper takes int32 only)",
                           small(3405), "G25", 0));
  out.push_back(error_spec("error_k16",
                           "G32: K = 16 at nk = 2 (a K tile of 8; valid for kda_replayssm)", small(3406), "G32", 0));
}

}  // namespace
}  // namespace kda::golden

namespace kda::engine {

// Row patterns and shapes first, then the dtype mixes, then the errors.
std::vector<golden::GoldenSpec> gdn_replayssm_golden_cases() {
  std::vector<golden::GoldenSpec> out;
  golden::add_step_cases(out);
  golden::add_dtype_cases(out);
  golden::add_ring_variant_cases(out);
  golden::add_error_cases(out);
  return out;
}

}  // namespace kda::engine
