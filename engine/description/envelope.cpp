#include "engine/description/envelope.hpp"

#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kda::engine {
namespace {

constexpr std::array<ScalarType, 3> kFloats = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
constexpr std::array<ScalarType, 2> kIndices = {ScalarType::Int32, ScalarType::Int64};

bool in(uint32_t set, ScalarType t) { return (set & dtype_bit(t)) != 0; }

// A dtype inside `set`, picked by `salt` among those it holds (t itself when inside).
template <std::size_t N>
std::optional<ScalarType> inside(uint32_t set, ScalarType t, const std::array<ScalarType, N>& all, uint64_t salt) {
  if (in(set, t)) return t;
  std::vector<ScalarType> ok;
  for (ScalarType s : all)
    if (in(set, s)) ok.push_back(s);
  if (ok.empty()) return std::nullopt;
  return ok[salt % ok.size()];
}

int64_t clamp_pow2(int64_t x, int64_t lo, int64_t hi) {
  while (x < lo) x *= 2;
  while (x > hi && x > 1) x /= 2;
  return x;
}

std::string set_name(uint32_t set) {
  std::string s = "{";
  for (ScalarType t : {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16, ScalarType::Int32,
                       ScalarType::Int64})
    if (in(set, t)) s += (s.size() > 1 ? "," : "") + std::string(name_of(t));
  return s + "}";
}

}  // namespace

uint32_t dtype_bit(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return KDA_DT_FLOAT32;
    case ScalarType::BFloat16: return KDA_DT_BFLOAT16;
    case ScalarType::Float16: return KDA_DT_FLOAT16;
    case ScalarType::Int32: return KDA_DT_INT32;
    case ScalarType::Int64: return KDA_DT_INT64;
  }
  return 0;
}

std::string_view name_of(InvalidRows r) {
  switch (r) {
    case InvalidRows::None: return "none";
    case InvalidRows::Raise: return "raise";
    case InvalidRows::Flag: return "flag";
  }
  return "?";
}

std::optional<InvalidRows> invalid_rows_named(std::string_view name) {
  for (InvalidRows r : {InvalidRows::None, InvalidRows::Raise, InvalidRows::Flag})
    if (name_of(r) == name) return r;
  return std::nullopt;
}

std::string invalid_rows_claim(InvalidRows r, bool probe, const OperatorDescription& op) {
  constexpr std::string_view padding = "padding rows (negative slots) tested in every suite";
  // In the operator's words: an operator without a ring has no cursor to get wrong.
  const bool ring = has_ring(op);
  const std::string_view invalid = ring ? "an invalid slot or cursor" : "an invalid slot";
  switch (r) {
    case InvalidRows::None:
      return fmt::format("none declared: slots past the pool, {}duplicate slots are the caller's duty, not claimed, {}; {}",
                         ring ? "cursors outside the ring and " : "and ",
                         probe ? "probed (reported, never failed)" : "not tested (--probe-invalid-indices feeds them)",
                         padding);
    case InvalidRows::Raise:
      return fmt::format("raise declared: a call with {} must be refused, nothing written "
                         "(tested in one kernel case in five); {}", invalid, padding);
    case InvalidRows::Flag:
      return fmt::format("flag declared: {} must be reported in the row status, nothing of "
                         "the row touched (tested in one kernel case in five); {}", invalid, padding);
  }
  return "";
}

Envelope Envelope::from_c(const kda_envelope& e, const OperatorDescription& op) {
  Envelope v;
  v.act_dtypes = e.act_dtypes;
  v.state_dtypes = e.state_dtypes;
  const bool rings = takes(op, "d_cache");
  v.ring_dtypes = rings ? e.ring_dtypes : KDA_DT_ALL_FLOATS;
  v.out_dtypes = e.out_dtypes;
  v.index_dtypes = e.index_dtypes;
  // The call built from a config "outside" by such a dtype would be inside.
  for (ScalarType t : kIndices) {
    CaseConfig c;
    c.index_dtype = t;
    if (op.fit_case(c).index_dtype != t) v.index_dtypes_fitted_away |= dtype_bit(t);
  }
  v.k_min = e.k_min, v.k_max = e.k_max, v.v_min = e.v_min, v.v_max = e.v_max;
  v.l_max = rings ? e.l_max : 0;
  v.strided = e.strided != 0;
  v.device = e.device_type == kDLCUDA ? Device::Cuda : Device::Cpu;
  return v;
}

Envelope Envelope::of_plugin(const kda_plugin& p) {
  Envelope e = from_c(p.envelope, find_operator(p.op));
  e.invalid_rows = p.invalid_rows == KDA_INVALID_ROWS_RAISE ? InvalidRows::Raise : InvalidRows::None;
  e.ring_modes = p.ring_modes == 0 ? KDA_RING_LINEAR : p.ring_modes;
  // What is no variant of the operator, every backend of it serves (OperatorDescription::ring_variants).
  e.ring_modes |= KDA_RING_ALL & ~find_operator(p.op).ring_variants;
  return e;
}

std::string Envelope::excludes(const CaseConfig& c) const {
  if (!in(act_dtypes, c.act_dtype)) return fmt::format("activation dtype {}", name_of(c.act_dtype));
  if (!in(state_dtypes, c.state_dtype)) return fmt::format("state dtype {}", name_of(c.state_dtype));
  if (!in(ring_dtypes, c.ring_dtype)) return fmt::format("ring dtype {}", name_of(c.ring_dtype));
  if (!in(out_dtypes, c.out_dtype)) return fmt::format("out dtype {}", name_of(c.out_dtype));
  if (!in(index_dtypes_inside(), c.index_dtype)) return fmt::format("index dtype {}", name_of(c.index_dtype));
  if (c.K < k_min || c.K > k_max) return fmt::format("K={} outside {}..{}", c.K, k_min, k_max);
  if (c.V < v_min || c.V > v_max) return fmt::format("V={} outside {}..{}", c.V, v_min, v_max);
  if (l_max > 0 && c.L > l_max) return fmt::format("L={} above {}", c.L, l_max);
  if (!strided && c.envelope) return "strided layouts (env=1) on a compact-only backend";
  if (c.circular && (ring_modes & KDA_RING_CIRCULAR) == 0) return "a circular ring (circ=1) on a linear-ring backend";
  if (!c.circular && (ring_modes & KDA_RING_LINEAR) == 0) return "a linear ring (circ=0) on a circular-ring backend";
  if (c.prefix_gates && (ring_modes & KDA_RING_PREFIX_GATES) == 0) return "prefix gates (pgc=1) on a backend without them";
  if (c.predecayed_keys && (ring_modes & KDA_RING_PREDECAYED_KEYS) == 0)
    return "pre-decayed keys (pdk=1) on a backend without them";
  return "";
}

std::optional<CaseConfig> Envelope::fit(CaseConfig c) const {
  const uint64_t s = c.seed;
  const auto act = inside(act_dtypes, c.act_dtype, kFloats, s), state = inside(state_dtypes, c.state_dtype, kFloats, s >> 8),
             ring = inside(ring_dtypes, c.ring_dtype, kFloats, s >> 16), out = inside(out_dtypes, c.out_dtype, kFloats, s >> 24);
  const auto index = inside(index_dtypes_inside(), c.index_dtype, kIndices, s >> 32);
  if (!act || !state || !ring || !out || !index || k_min > k_max || v_min > v_max) return std::nullopt;
  c.act_dtype = *act, c.state_dtype = *state, c.ring_dtype = *ring, c.out_dtype = *out, c.index_dtype = *index;
  c.K = clamp_pow2(c.K, k_min, k_max);
  c.V = clamp_pow2(c.V, v_min, v_max);
  if (l_max > 0) c.L = std::min(c.L, l_max);
  if (!strided) c.envelope = false;
  if ((ring_modes & KDA_RING_CIRCULAR) == 0) c.circular = false;
  if ((ring_modes & KDA_RING_LINEAR) == 0) c.circular = true;
  if ((ring_modes & KDA_RING_PREFIX_GATES) == 0) c.prefix_gates = false;
  if ((ring_modes & KDA_RING_PREDECAYED_KEYS) == 0) c.predecayed_keys = false;
  if (!excludes(c).empty()) return std::nullopt;
  return c;
}

std::vector<CaseConfig> Envelope::just_outside(const CaseConfig& c) const {
  std::vector<CaseConfig> out;
  auto with_dtype = [&](uint32_t set, ScalarType CaseConfig::*field, auto const& all) {
    for (ScalarType t : all)
      if (!in(set, t)) {
        CaseConfig o = c;
        o.*field = t;
        out.push_back(o);
        return;
      }
  };
  with_dtype(act_dtypes, &CaseConfig::act_dtype, kFloats);
  with_dtype(state_dtypes, &CaseConfig::state_dtype, kFloats);
  with_dtype(ring_dtypes, &CaseConfig::ring_dtype, kFloats);
  with_dtype(out_dtypes, &CaseConfig::out_dtype, kFloats);
  with_dtype(index_dtypes_inside(), &CaseConfig::index_dtype, kIndices);
  // A head dim one power of two past the range, the rest of the case shrunk (one row per
  // slot, no grouping, a short ring, one token, the other head dim small) so that the call
  // stays cheap to build at any K or V a declared bound allows.
  const auto past = [&](int64_t k, int64_t v) {
    CaseConfig o = c;
    o.HV = o.H, o.slots = o.B, o.L = std::min<int64_t>(o.L, 4), o.steps = 1;
    o.K = k, o.V = v;
    out.push_back(o);
  };
  constexpr int64_t kLargestBound = int64_t{1} << 12;  // bounds beyond it are "no bound"
  if (k_max < kLargestBound) past(k_max * 2, clamp_pow2(std::min<int64_t>(c.V, 8), v_min, v_max));
  if (k_min > 1) out.push_back(c), out.back().K = k_min / 2;
  if (v_max < kLargestBound) past(clamp_pow2(std::min<int64_t>(c.K, 8), k_min, k_max), v_max * 2);
  if (v_min > 1) out.push_back(c), out.back().V = v_min / 2;
  if (l_max > 0 && l_max < 64) out.push_back(c), out.back().L = l_max + 1;
  // A strided layout with two slots at least: the slot stride is the one every operator's
  // envelope layout pads, and over one slot (with one row) every tensor would be contiguous.
  if (!strided) out.push_back(c), out.back().envelope = true, out.back().slots = std::max<int64_t>(c.slots, 2);
  if ((ring_modes & KDA_RING_CIRCULAR) == 0) out.push_back(c), out.back().circular = true;
  if ((ring_modes & KDA_RING_LINEAR) == 0) out.push_back(c), out.back().circular = false;
  if ((ring_modes & KDA_RING_PREFIX_GATES) == 0) out.push_back(c), out.back().prefix_gates = true;
  if ((ring_modes & KDA_RING_PREDECAYED_KEYS) == 0) out.push_back(c), out.back().predecayed_keys = true;
  return out;
}

std::string Envelope::describe() const { return describe_with(true, KDA_RING_ALL); }

std::string Envelope::describe(const OperatorDescription& op) const {
  return describe_with(has_ring(op), op.ring_variants);
}

std::string Envelope::describe_with(bool ring, uint32_t variants) const {
  const uint32_t modes = ring_modes & variants;  // what the operator has: the rest is no claim
  std::string rings;
  if (ring && modes != KDA_RING_LINEAR) {
    for (const auto& [bit, name] : {std::pair{KDA_RING_LINEAR, "linear"}, {KDA_RING_CIRCULAR, "circular"},
                                    {KDA_RING_PREFIX_GATES, "prefix-gates"}, {KDA_RING_PREDECAYED_KEYS, "predecayed-keys"}})
      if (modes & bit) rings += std::string(rings.empty() ? "" : ",") + name;
    rings = " rings {" + rings + "}";
  }
  return fmt::format("act {} state {}{} out {} idx {} K {}..{} V {}..{}{} {} {} invalid-rows {}{}",
                     set_name(act_dtypes), set_name(state_dtypes), ring ? " ring " + set_name(ring_dtypes) : "",
                     set_name(out_dtypes), set_name(index_dtypes), k_min, k_max, v_min, v_max,
                     ring && l_max > 0 ? fmt::format(" L<={}", l_max) : "", strided ? "strided" : "compact-only",
                     device == Device::Cuda ? "cuda" : "cpu", name_of(invalid_rows), rings);
}

}  // namespace kda::engine
