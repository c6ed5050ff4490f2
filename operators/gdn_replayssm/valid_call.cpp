#include "operators/gdn_replayssm/valid_call.hpp"

#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"

namespace kda::engine {
namespace {

// From raw_from on, a check reads the raw strides (G2, G10, G14, the harness's
// X-GDN-GATE-STRIDES; is_contiguous() excuses size-1 dims anyway).
TensorSpec make(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape, std::size_t raw_from) {
  return compact_call_tensor(c, dtype, std::move(shape), raw_from);
}

}  // namespace

CallSpec triton_valid_spec(const CallConfig& c, bool is_kda) {
  const int64_t B = c.B, H = c.H, HV = c.HV(), K = c.K, V = c.V, L = c.L, S = c.slots;
  const DLDataType act = to_dl(c.act), i32 = to_dl(ScalarType::Int32);
  CallSpec s;
  s.set("mixed_qkv", make(c, act, {B, 2 * H * K + HV * V}, 1));
  // The KDA path: a gate per key channel, a [B, HV, K] and dt_bias [HV, K] contiguous (K19).
  s.set("a", is_kda ? make(c, act, {B, HV, K}, 2) : make(c, act, {B, HV}, 1));
  s.set("b", make(c, act, {B, HV}, 1));
  s.set("A_log", make(c, act, {HV}, 1));
  s.set("dt_bias", is_kda ? make(c, act, {HV, K}, 1) : make(c, act, {HV}, 0));
  // Any slot stride is allowed (G10 reads only the inner three): the envelope layout pads it.
  TensorSpec state = make(c, to_dl(c.state), {S, HV, V, K}, 1);
  if (c.envelope_pad > 0 && S != 1) state.explicit_strides()[0] = HV * V * K + c.envelope_pad;
  s.set("initial_state", state);
  s.set("d_cache", make(c, to_dl(c.ring), {S, HV, L, V}, 4));
  s.set("k_cache", make(c, to_dl(c.ring), {S, H, L, K}, 4));
  s.set("g_cache", is_kda ? make(c, to_dl(ScalarType::Float32), {S, HV, L, K}, 4)
                          : make(c, to_dl(ScalarType::Float32), {S, HV, L}, 3));
  s.set("out", make(c, to_dl(c.out), {B, 1, HV, V}, 4));
  s.set("ssm_state_indices", make(c, i32, {B}, 1));
  s.set("write_pos", make(c, i32, {B}, 1));
  if (c.force_flush) s.set("force_flush", make(c, i32, {B}, 1));
  s.backend = c.backend;
  return s;
}

CallSpec gdn_valid_spec(const CallConfig& c) { return triton_valid_spec(c, false); }

}  // namespace kda::engine
