#include "operators/fla_recurrent_kda/description.hpp"

#include <fmt/format.h>

#include "engine/description/replayssm_sample_space.hpp"
#include "operators/fla_recurrent_kda/case_tensors.hpp"
#include "operators/fla_recurrent_kda/contract.hpp"
#include "operators/fla_recurrent_kda/driver.hpp"
#include "operators/fla_recurrent_kda/reference_step.hpp"

namespace kda::engine {
namespace {

// T in 1..4: one in two calls the common decode (T = 1), the others a speculative verify.
CallConfig sample_call(Chooser& ch, const SampleLimits& limits) {
  CallConfig c = sample_call_config(ch, limits);
  c.tokens = ch.coin() ? 1 : ch.integer(2, 4);
  c.L = 0;
  return c;
}

Dims dims_of(const CallConfig& c) {
  Dims d{c.B, c.H, c.HV(), c.K, c.V, 0, c.slots};
  d.T = c.tokens;
  return d;
}

const std::vector<ErrorInput>& error_inputs() {
  static const std::vector<ErrorInput> list = fla_recurrent_kda_error_inputs();
  return list;
}

}  // namespace

CallSpec fla_recurrent_kda_valid_spec(const CallConfig& c) {
  const int64_t B = c.B, T = c.tokens, H = c.H, HV = c.HV(), K = c.K, V = c.V, N = c.slots;
  const DLDataType act = to_dl(c.act);
  CallSpec s;
  s.set("q", compact_call_tensor(c, act, {B, T, H, K}, 4));
  s.set("k", compact_call_tensor(c, act, {B, T, H, K}, 4));
  s.set("v", compact_call_tensor(c, act, {B, T, HV, V}, 4));
  s.set("g", compact_call_tensor(c, to_dl(ScalarType::Float32), {B, T, HV, K}, 4));
  s.set("beta", compact_call_tensor(c, act, {B, T, HV}, 3));
  s.set("A_log", compact_call_tensor(c, act, {HV}, 1));
  s.set("dt_bias", compact_call_tensor(c, act, {HV * K}, 1));
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

const OperatorDescription& fla_recurrent_kda_operator() {
  static const OperatorDescription op{
      .name = "fla_recurrent_kda",
      .summary = "flash-linear-attention's recurrent KDA decode: T tokens per sequence on a state pool updated in place",
      .tensors = kFlaRecurrentKdaTensors,
      .scalars = kFlaRecurrentKdaScalars,
      .bind = &fla_recurrent_kda_args,
      .validate = &validate_fla_recurrent_kda,
      .reference_step = &reference::fla_recurrent_kda_step,
      .error_inputs = &error_inputs,
      .sample_call = &sample_call,
      .valid_spec = &fla_recurrent_kda_valid_spec,
      .dims_of = &dims_of,
      .fit_case = &fit_fla_case,
      .beta_through_b = false,
      .ok_line = [](const Dims& d) {
        return fmt::format("ok B={} T={} H={} HV={} K={} V={} slots={}", d.B, d.T, d.H, d.HV, d.K, d.V, d.slots);
      },
      .case_driver = &fla_recurrent_kda_driver()};
  return op;
}

}  // namespace kda::engine
