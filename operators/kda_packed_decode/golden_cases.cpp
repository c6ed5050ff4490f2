// The golden cases of the plain packed decode (spec/packed-decode.md). Each config is made
// one of the operator's cases (L = 1, no force_flush, 2-D `a`, 1-D `dt_bias`), so its files
// hold the ReplaySSM call at L = 1 that the config materializes; the operator reads its own
// tensors of it. Two error cases are the layouts ReplaySSM's wrapper flattens and this
// operator refuses; one step case is the layout it accepts and ReplaySSM's wrapper refuses.
#include "operators/kda_packed_decode/golden_cases.hpp"

#include <fmt/format.h>

#include <array>

#include "cases/row_padding.hpp"
#include "engine/description/operator.hpp"

namespace kda::golden {
namespace {

constexpr ScalarType kF32 = ScalarType::Float32, kBF16 = ScalarType::BFloat16, kF16 = ScalarType::Float16;

// B=3 rows, one query head, two value heads, K=V=16, 4 slots, one token.
CaseConfig small(uint64_t seed) {
  CaseConfig c;
  c.B = 3; c.H = 1; c.HV = 2; c.K = 16; c.V = 16; c.slots = 4; c.pad_fraction = 0.34; c.steps = 1;
  c.seed = seed;
  return engine::find_operator("kda_packed_decode").fit_case(c);
}

GoldenSpec spec(std::string name, std::string purpose, const CaseConfig& c, std::vector<Feature> features = {}) {
  GoldenSpec s;
  s.name = std::move(name);
  s.purpose = "plain packed decode: " + purpose;
  s.config = engine::find_operator("kda_packed_decode").fit_case(c);
  s.features = std::move(features);
  return s;
}

std::vector<GoldenSpec> packed_decode_cases() {
  std::vector<GoldenSpec> out;
  // act x state x out (the ring dtype is not this operator's): 27 cases, the other flags
  // rotating as in ReplaySSM's dtype cases.
  const std::array<ScalarType, 3> types = {kF32, kBF16, kF16};
  int i = 0;
  for (ScalarType act : types)
    for (ScalarType state : types)
      for (ScalarType o : types) {
        CaseConfig c = small(2000 + i);
        c.act_dtype = act; c.state_dtype = state; c.out_dtype = o;
        c.l2norm = i % 3 != 2;
        c.index_dtype = i % 4 == 3 ? ScalarType::Int64 : ScalarType::Int32;
        if (i % 5 == 4) c.lower_bound = -5.0;
        out.push_back(spec(fmt::format("dtype_{}_{}_{}", short_name(act), short_name(state), short_name(o)),
                           fmt::format("dtype combination act={} state={} out={} (one step, K=V=16)", name_of(act),
                                       name_of(state), name_of(o)),
                           c));
        ++i;
      }
  for (int64_t ratio : {1, 2, 8}) {
    CaseConfig c = small(2040 + ratio);
    c.H = ratio == 8 ? 1 : 2; c.HV = c.H * ratio; c.steps = 2;
    out.push_back(spec(fmt::format("gqa_ratio_{}", ratio),
                       fmt::format("grouped heads HV/H = {} (H={}, HV={}), two tokens", ratio, c.H, c.HV), c));
  }
  {
    CaseConfig c = small(2011);
    c.B = 5; c.slots = 6; c.pad_fraction = 0.4; c.index_dtype = ScalarType::Int64;
    out.push_back(spec("padding_rows_int64", "padding rows (out row zero, state untouched), int64 indices", c,
                       {Feature::Padding}));
  }
  {
    CaseConfig c = small(2051);
    c.lower_bound = -5.0; c.steps = 2;
    out.push_back(spec("bounded_gate", "the bounded gate, lower_bound = -5 (two tokens)", c));
  }
  for (bool l2 : {true, false}) {
    CaseConfig c = small(l2 ? 2061 : 2062);
    c.l2norm = l2;
    out.push_back(spec(l2 ? "l2norm_on" : "l2norm_off",
                       l2 ? "use_qk_l2norm_in_kernel = true" : "use_qk_l2norm_in_kernel = false", c));
  }
  {
    CaseConfig c = small(2001);
    c.envelope = true; c.steps = 3;
    out.push_back(spec("envelope_strided",
                       "slot-padded initial_state, row-padded mixed_qkv and b (stored compact, strides in the "
                       "metadata; three tokens)",
                       c));
  }
  {
    CaseConfig c = small(2101);
    c.H = 2; c.HV = 4; c.steps = 9;
    out.push_back(spec("rollout_gqa_9_tokens", "a 9-token rollout (GQA 2), every token's outputs stored", c));
  }
  {
    // The layout this operator accepts and ReplaySSM's wrapper refuses (W1, its case
    // error_a_row_padded): `a` with padded rows, re-laid after materialization; with the
    // envelope's layouts (so a compact-only backend is expected to refuse it) and K != V.
    // State, out and the unused rings in float32: verification bounds a case by the stored
    // call's ring dtype too, so this keeps them as tight as this operator's own roundings,
    // tight enough to see beta rounded through b's bfloat16.
    CaseConfig c = small(2081);
    c.H = 2; c.HV = 4; c.V = 8; c.envelope = true; c.steps = 2;
    c.state_dtype = c.ring_dtype = c.out_dtype = kF32;
    GoldenSpec s = spec("a_row_padded",
                        fmt::format("a as [B, HV*K] with rows {} elements apart beyond HV*K (not contiguous, last "
                                    "stride 1; ReplaySSM refuses it with W1), beside the envelope's strided layouts; "
                                    "H=2, HV=4, K=16, V=8, bfloat16 activations, float32 state and out, two tokens",
                                    kRowPadding),
                        c);
    s.a_row_padded = true;
    out.push_back(s);
  }
  // The layouts that ReplaySSM's wrapper flattens (its a3d_dtbias2d case) and this operator
  // refuses: V3 (error input variant 0: a as [B, HV, K]) and V5 (variant 1: dt_bias as [HV, K]).
  GoldenSpec a3d = spec("error_a_3d", "a as [B, HV, K] fails V3 (ReplaySSM flattens it)", small(2071));
  a3d.error_input = "V3";
  a3d.error_variant = 0;
  out.push_back(a3d);
  GoldenSpec dt2d = spec("error_dt_bias_2d", "dt_bias as [HV, K] fails V5 (ReplaySSM flattens it)", small(2072));
  dt2d.error_input = "V5";
  dt2d.error_variant = 1;
  out.push_back(dt2d);
  return out;
}

}  // namespace
}  // namespace kda::golden

namespace kda::engine {

std::vector<golden::GoldenSpec> kda_packed_decode_golden_cases() { return golden::packed_decode_cases(); }

}  // namespace kda::engine
