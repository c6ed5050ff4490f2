#include "operators/fla_recurrent_common/call.hpp"

#include <fmt/format.h>

#include "operators/replayssm_family/sample_space.hpp"
#include "operators/replayssm_family/valid_call.hpp"

namespace kda::engine {

CallConfig sample_fla_call(Chooser& ch, const SampleLimits& limits) {
  CallConfig c = sample_call_config(ch, limits);
  c.tokens = ch.coin() ? 1 : ch.integer(2, 4);
  c.L = 0;
  return c;
}

Dims fla_dims_of(const CallConfig& c) {
  Dims d{c.B, c.H, c.HV(), c.K, c.V, 0, c.slots};
  d.T = c.tokens;
  return d;
}

std::string fla_ok_line(const Dims& d) {
  return fmt::format("ok B={} T={} H={} HV={} K={} V={} slots={}", d.B, d.T, d.H, d.HV, d.K, d.V, d.slots);
}

CallSpec fla_recurrent_valid_spec(const CallConfig& c, FlaGate gate) {
  const int64_t B = c.B, T = c.tokens, H = c.H, HV = c.HV(), K = c.K, V = c.V, N = c.slots;
  const bool per_key = gate == FlaGate::PerKey;
  const DLDataType act = to_dl(c.act);
  CallSpec s;
  s.set("q", compact_call_tensor(c, act, {B, T, H, K}, 4));
  s.set("k", compact_call_tensor(c, act, {B, T, H, K}, 4));
  s.set("v", compact_call_tensor(c, act, {B, T, HV, V}, 4));
  s.set("g", per_key ? compact_call_tensor(c, to_dl(ScalarType::Float32), {B, T, HV, K}, 4)
                     : compact_call_tensor(c, to_dl(ScalarType::Float32), {B, T, HV}, 3));
  s.set("beta", compact_call_tensor(c, act, {B, T, HV}, 3));
  s.set("A_log", compact_call_tensor(c, act, {HV}, 1));
  s.set("dt_bias", compact_call_tensor(c, act, {per_key ? HV * K : HV}, 1));
  TensorSpec pool = compact_call_tensor(c, to_dl(c.state), {N, HV, K, V}, 1);
  if (c.envelope_pad > 0 && N != 1) pool.explicit_strides()[0] = HV * K * V + c.envelope_pad;
  s.set("initial_state", pool);
  s.set("ssm_state_indices", compact_call_tensor(c, to_dl(c.index), T == 1 ? std::vector<int64_t>{B} : std::vector<int64_t>{B, T},
                                                 T == 1 ? 1 : 2));
  if (T > 1) s.set("num_accepted_tokens", compact_call_tensor(c, to_dl(ScalarType::Int32), {B}, 1));
  s.set("out", compact_call_tensor(c, to_dl(c.out), {B, T, HV, V}, 4));
  s.backend = c.backend;
  return s;
}

}  // namespace kda::engine
