// kda_replayssm's golden cases. Shapes are small (K, V of 8 and 16) wherever the purpose
// allows, to keep the files small, with K != V in most cases (a stride or offset taken from
// the wrong head dim shows only there); the SGLang-like rollout keeps SGLang's own K = V =
// 128. Seeds were chosen so that each case shows the row patterns it claims (the generator
// checks the claims); the dtype cases search theirs.
#include "operators/kda_replayssm/golden_cases.hpp"

#include <fmt/format.h>

#include <array>
#include <tuple>

#include "cases/row_padding.hpp"
#include "operators/replayssm_family/golden_features.hpp"

namespace kda::golden {
namespace {

using F = Feature;
constexpr ScalarType kF32 = ScalarType::Float32, kBF16 = ScalarType::BFloat16, kF16 = ScalarType::Float16;

// A small one-step case: B=3 rows, one query head, two value heads, K=16, V=8, L=3, 4 slots.
CaseConfig small(uint64_t seed) {
  CaseConfig c;
  c.B = 3; c.H = 1; c.HV = 2; c.K = 16; c.V = 8; c.L = 3; c.slots = 4;
  c.pad_fraction = 0.34; c.flush_prob = 0.3; c.random_cursors = true; c.steps = 1;
  c.seed = seed;
  return c;
}

// act x state x ring x out: all 81 combinations, one case each. The other flags rotate over
// the set so that every dtype case also differs in layout, gate and shape: K != V both ways
// and K = V, grouped heads (H=2, HV=4) in half of them. Each appends and flushes, so every
// combination stores a ring record and a checkpoint.
void add_dtype_cases(std::vector<GoldenSpec>& out) {
  const std::array<ScalarType, 3> types = {kF32, kBF16, kF16};
  const std::array<std::pair<int64_t, int64_t>, 3> head_dims = {{{16, 8}, {8, 16}, {16, 16}}};
  int i = 0;
  for (ScalarType act : types)
    for (ScalarType state : types)
      for (ScalarType ring : types)
        for (ScalarType o : types) {
          CaseConfig c = small(1000 + i);
          c.act_dtype = act; c.state_dtype = state; c.ring_dtype = ring; c.out_dtype = o;
          c.a_3d = i % 2 == 1;
          c.dt_bias_2d = (i / 2) % 2 == 1;
          c.l2norm = i % 3 != 2;
          c.index_dtype = i % 4 == 3 ? ScalarType::Int64 : ScalarType::Int32;
          if (i % 5 == 4) c.lower_bound = -5.0;
          c.envelope = i % 7 == 6;
          std::tie(c.K, c.V) = head_dims[i % 3];
          if ((i / 3) % 2 == 0) c.H = 2, c.HV = 4;
          GoldenSpec s;
          s.name = fmt::format("dtype_{}_{}_{}_{}", short_name(act), short_name(state), short_name(ring), short_name(o));
          s.purpose = fmt::format("dtype combination act={} state={} ring={} out={} (one step, H={}, HV={}, K={}, V={})",
                                  name_of(act), name_of(state), name_of(ring), name_of(o), c.H, c.HV, c.K, c.V);
          s.config = c;
          s.features = {F::Append, i % 2 == 0 ? F::ForcedFlush : F::NaturalFlush};
          s.config.seed = seed_showing(s, 1000 + i, 81);
          out.push_back(std::move(s));
          ++i;
        }
}

GoldenSpec step_case(std::string name, std::string purpose, CaseConfig config, std::vector<Feature> features = {},
                     std::map<int64_t, std::vector<int32_t>> forced = {}) {
  GoldenSpec s;
  s.name = std::move(name);
  s.purpose = std::move(purpose);
  s.config = config;
  s.features = std::move(features);
  s.forced = std::move(forced);
  return s;
}

void add_feature_cases(std::vector<GoldenSpec>& out) {
  {
    CaseConfig c = small(7);
    c.H = 2; c.HV = 4; c.L = 1; c.steps = 3; c.pad_fraction = 0.3;
    out.push_back(step_case("l1_plain_decode", "L = 1: every step flushes, so each step is the plain decode (3 tokens)",
                            c, {F::NaturalFlush}));
  }
  {
    CaseConfig c = small(6);
    c.B = 4; c.slots = 6; c.L = 4; c.pad_fraction = 0.25; c.flush_prob = 0;
    out.push_back(step_case("append_natural_forced_padding",
                            "one step where one row appends, one flushes naturally (cursor L-1), one is forced to "
                            "flush and one is padding",
                            c, {F::Append, F::NaturalFlush, F::ForcedFlush, F::Padding},
                            {{0, {0, 0, 1, 0}}}));
  }
  {
    CaseConfig c = small(4);
    c.B = 4; c.slots = 5; c.L = 6; c.pad_fraction = 0; c.flush_prob = 0;
    out.push_back(step_case("divergent_cursors",
                            "four rows at four different cursors: each rebuild combines a different number of ring "
                            "records",
                            c, {F::DivergentCursors}));
  }
  {
    CaseConfig c = small(11);
    c.B = 5; c.slots = 6; c.L = 4; c.pad_fraction = 0.4; c.index_dtype = ScalarType::Int64;
    out.push_back(step_case("padding_rows_int64",
                            "padding rows first and last (slot -1: out row zero, nothing else touched), int64 "
                            "ssm_state_indices",
                            c, {F::Padding, F::Append}));
  }
  for (int64_t ratio : {1, 2, 8}) {
    CaseConfig c = small(40 + ratio);
    c.H = ratio == 8 ? 1 : 2; c.HV = c.H * ratio; c.steps = 2; c.L = 4; c.flush_prob = 0.2;
    out.push_back(step_case(fmt::format("gqa_ratio_{}", ratio),
                            fmt::format("grouped heads HV/H = {} (H={}, HV={}): one key ring head per {} value "
                                        "head(s); two tokens, so appended keys are read back",
                                        ratio, c.H, c.HV, ratio),
                            c, {F::Append}));
  }
  {
    CaseConfig c = small(51);
    c.lower_bound = -5.0; c.steps = 2; c.L = 4;
    out.push_back(step_case("bounded_gate", "the bounded gate g = lower_bound * sigmoid(A x), lower_bound = -5 "
                                            "(two tokens)", c));
  }
  for (bool l2 : {true, false}) {
    CaseConfig c = small(l2 ? 61 : 62);
    c.l2norm = l2;
    out.push_back(step_case(l2 ? "l2norm_on" : "l2norm_off",
                            l2 ? "use_qk_l2norm_in_kernel = true: q and k normalized in the step"
                               : "use_qk_l2norm_in_kernel = false: keys of norm ~1 given as is",
                            c));
  }
  {
    CaseConfig c = small(1);
    c.envelope = true; c.steps = 3; c.flush_prob = 0.25;
    out.push_back(step_case("envelope_strided",
                            "strided layouts: slot-padded initial_state and k_cache, page-major d/g rings, "
                            "row-padded mixed_qkv and b (stored compact, strides in the metadata; three tokens)",
                            c, {F::Append, F::NaturalFlush}));
  }
  {
    CaseConfig c = small(71);
    c.a_3d = true; c.dt_bias_2d = true;
    out.push_back(step_case("a3d_dtbias2d", "a as [B, HV, K] and dt_bias as [HV, K]", c));
  }
  {
    CaseConfig c = small(72);
    c.force_flush = false;
    out.push_back(step_case("no_force_flush", "force_flush absent (None): only natural flushes", c));
  }
  {
    CaseConfig c = small(73);
    c.values = ValueMode::Adversarial; c.act_dtype = c.ring_dtype = c.out_dtype = kF32; c.steps = 2;
    out.push_back(step_case("adversarial_values",
                            "adversarial values: large logits, gates at the softplus threshold, saturated beta, "
                            "scales 2^-4..2^4 (float32, two tokens)",
                            c));
  }
  {
    CaseConfig c = small(1);
    c.H = 2; c.HV = 4; c.steps = 9; c.flush_prob = 0.25;
    out.push_back(step_case("rollout_gqa_9_tokens",
                            "a 9-token rollout (L=3, GQA 2) through appends, natural and forced flushes and a "
                            "padding row, every token's outputs stored",
                            c, {F::Append, F::NaturalFlush, F::ForcedFlush, F::Padding}));
  }
  {
    // SGLang's own contract test: B=3, H=2, HV=4, K=V=128, L=4, 5 slots, rows [3, -1, 1],
    // cursors from 0, a forced flush of every row at step 2, 7 tokens (natural flush at 6).
    CaseConfig c;
    c.B = 3; c.H = 2; c.HV = 4; c.K = 128; c.V = 128; c.L = 4; c.slots = 5; c.steps = 7;
    c.pad_fraction = 0.34; c.flush_prob = 0; c.random_cursors = false; c.seed = 100;
    out.push_back(step_case("sglang_contract_rollout",
                            "SGLang's contract test: B=3, H=2, HV=4, K=V=128, L=4, 5 slots, rows [3, -1, 1], "
                            "forced flush at step 2, natural flush at step 6; every step's outputs stored",
                            c, {F::Append, F::NaturalFlush, F::ForcedFlush, F::Padding}, {{2, {1, 1, 1}}}));
  }
}

GoldenSpec error_case(std::string name, std::string purpose, CaseConfig config, std::string input, uint32_t variant) {
  GoldenSpec s;
  s.name = std::move(name);
  s.purpose = std::move(purpose);
  s.config = config;
  s.error_input = std::move(input);
  s.error_variant = variant;
  return s;
}

// The error inputs' variants named here: R6 #0 HV heads where H != HV, #1 ring length L+1,
// #4 four times H heads; R8 #0 bfloat16; X-RING-SLOTS #0 d_cache with one slot more; W1 #3
// a row-padded `a`.
void add_error_cases(std::vector<GoldenSpec>& out) {
  CaseConfig gqa = small(81);
  gqa.H = 2; gqa.HV = 4;
  out.push_back(error_case("error_k_cache_hv_heads",
                           "R6 trigger 1: k_cache allocated with HV=4 value heads instead of H=2 query heads (GQA)",
                           gqa, "R6", 0));
  out.push_back(error_case("error_k_cache_ring_length",
                           "R6 trigger 2: k_cache ring length L+1 while d_cache's is L", gqa, "R6", 1));
  // Tensor parallelism: a layer of H=8 query and HV=16 value heads split over 4 ranks gives
  // each rank H=2, HV=4; this rank's key ring was left unsplit (8 heads).
  out.push_back(error_case("error_k_cache_tp_unsharded",
                           "R6 trigger 3: tensor parallelism over 4 ranks (H=8, HV=16 -> 2 and 4 per rank) with "
                           "the key ring not sharded on the query-head axis (8 heads)",
                           gqa, "R6", 4));
  out.push_back(error_case("error_g_cache_bfloat16", "R8: g_cache in bfloat16 (the gate ring must be float32)",
                           small(82), "R8", 0));
  out.push_back(error_case("error_ring_slots", "harness extension X-RING-SLOTS: d_cache with one slot more than "
                                               "initial_state",
                           small(83), "X-RING-SLOTS", 0));
  // The layout that the plain packed decode accepts (its case packed_a_row_padded, the same
  // shapes and layouts) and this wrapper refuses: W1 #3, `a` with padded rows.
  CaseConfig padded = small(84);
  padded.H = 2; padded.HV = 4; padded.envelope = true;
  out.push_back(error_case("error_a_row_padded",
                           fmt::format("W1: a as [B, HV*K] with rows {} elements apart beyond HV*K (not contiguous, "
                                       "though every last stride is 1; the plain packed decode accepts it)",
                                       kRowPadding),
                           padded, "W1", 3));
}

}  // namespace
}  // namespace kda::golden

namespace kda::engine {

// Row patterns first, then the dtype combinations, then the errors.
std::vector<golden::GoldenSpec> kda_replayssm_golden_cases() {
  std::vector<golden::GoldenSpec> out;
  golden::add_feature_cases(out);
  golden::add_dtype_cases(out);
  golden::add_error_cases(out);
  return out;
}

}  // namespace kda::engine
