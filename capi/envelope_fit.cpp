#include "capi/envelope_fit.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

namespace kda::capi {
namespace {

constexpr struct {
  uint32_t bit;
  ScalarType type;
} kDtypeBits[] = {{KDA_DT_FLOAT32, ScalarType::Float32}, {KDA_DT_BFLOAT16, ScalarType::BFloat16},
                  {KDA_DT_FLOAT16, ScalarType::Float16}, {KDA_DT_INT32, ScalarType::Int32},
                  {KDA_DT_INT64, ScalarType::Int64}};

uint32_t bit_of(ScalarType t) {
  for (const auto& e : kDtypeBits)
    if (e.type == t) return e.bit;
  return 0;
}

// t when allowed, else the allowed type at a position picked by `pick`.
ScalarType fit_dtype(ScalarType t, uint32_t allowed, uint32_t family, uint64_t pick, const char* what) {
  allowed &= family;
  if (allowed == 0) throw std::invalid_argument(std::string("envelope: no allowed dtype for ") + what);
  if (bit_of(t) & allowed) return t;
  std::vector<ScalarType> options;
  for (const auto& e : kDtypeBits)
    if (e.bit & allowed) options.push_back(e.type);
  return options[pick % options.size()];
}

int64_t fit_power_of_two(int64_t x, int64_t lo, int64_t hi, const char* what) {
  lo = std::max<int64_t>(lo, 1);
  const int64_t min_pow = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(lo)));
  if (hi < min_pow) throw std::invalid_argument(std::string("envelope: no power of two in the range of ") + what);
  const int64_t max_pow = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(hi)));
  return std::clamp(x, min_pow, max_pow);
}

}  // namespace

CaseConfig fit_to_envelope(CaseConfig c, const kda_envelope& e) {
  const uint64_t s = c.seed;
  c.act_dtype = fit_dtype(c.act_dtype, e.act_dtypes, KDA_DT_ALL_FLOATS, s, "activations");
  c.state_dtype = fit_dtype(c.state_dtype, e.state_dtypes, KDA_DT_ALL_FLOATS, s >> 8, "initial_state");
  c.ring_dtype = fit_dtype(c.ring_dtype, e.ring_dtypes, KDA_DT_ALL_FLOATS, s >> 16, "the rings");
  c.out_dtype = fit_dtype(c.out_dtype, e.out_dtypes, KDA_DT_ALL_FLOATS, s >> 24, "out");
  c.index_dtype = fit_dtype(c.index_dtype, e.index_dtypes, KDA_DT_ALL_INDICES, s >> 32, "ssm_state_indices");
  c.K = fit_power_of_two(c.K, e.k_min, e.k_max, "K");
  c.V = fit_power_of_two(c.V, e.v_min, e.v_max, "V");
  if (e.l_max > 0) c.L = std::min(c.L, e.l_max);
  if (!e.strided) c.envelope = false;
  return c;
}


}  // namespace kda::capi

namespace kda::capi {

std::optional<OutsideCall> outside_envelope(const CaseConfig& inside, const kda_envelope& e, uint64_t pick) {
  std::vector<OutsideCall> options;
  const auto dtypes = [&](ScalarType CaseConfig::*field, uint32_t allowed, uint32_t family, const char* what) {
    for (const auto& d : kDtypeBits)
      if ((d.bit & family) && !(d.bit & allowed)) {
        CaseConfig c = inside;
        c.*field = d.type;
        options.push_back({c, std::string(what) + " " + std::string(name_of(d.type))});
      }
  };
  dtypes(&CaseConfig::act_dtype, e.act_dtypes, KDA_DT_ALL_FLOATS, "activations");
  dtypes(&CaseConfig::state_dtype, e.state_dtypes, KDA_DT_ALL_FLOATS, "initial_state");
  dtypes(&CaseConfig::ring_dtype, e.ring_dtypes, KDA_DT_ALL_FLOATS, "d_cache and k_cache");
  dtypes(&CaseConfig::out_dtype, e.out_dtypes, KDA_DT_ALL_FLOATS, "out");
  dtypes(&CaseConfig::index_dtype, e.index_dtypes, KDA_DT_ALL_INDICES, "ssm_state_indices");
  // Head dims one power of two past the range, within 1..256 (the sample space reaches 128).
  const auto dim = [&](int64_t CaseConfig::*field, int64_t lo, int64_t hi, const char* name) {
    std::vector<int64_t> past;
    if (lo > 1) past.push_back(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(lo))) / 2);
    if (hi < 256) past.push_back(static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(hi, 1)))) * 2);
    for (int64_t v : past) {
      CaseConfig c = inside;
      c.*field = v;
      options.push_back({c, std::string(name) + " = " + std::to_string(v)});
    }
  };
  dim(&CaseConfig::K, e.k_min, e.k_max, "K");
  dim(&CaseConfig::V, e.v_min, e.v_max, "V");
  if (e.l_max > 0) {
    CaseConfig c = inside;
    c.L = e.l_max + 1;
    options.push_back({c, "L = " + std::to_string(c.L)});
  }
  if (!e.strided) {
    CaseConfig c = inside;
    c.envelope = true;
    options.push_back({c, "strided (envelope) layouts"});
  }
  if (options.empty()) return std::nullopt;
  OutsideCall o = options[pick % options.size()];
  o.config.steps = 1;
  return o;
}

}  // namespace kda::capi
