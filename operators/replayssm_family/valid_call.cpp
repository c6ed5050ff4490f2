#include "operators/replayssm_family/valid_call.hpp"

#include "contract/tensor_view.hpp"

namespace kda::engine {
namespace {

// KDA's valid calls: a check reads the raw stride of the last dim of the tensors marked
// raw_last (every other dim of size 1 may take the config's odd stride).
TensorSpec make(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape, bool raw_last) {
  const std::size_t raw_from = raw_last ? shape.size() - 1 : shape.size();
  return compact_call_tensor(c, dtype, std::move(shape), raw_from);
}

// Persistent state and rings: the slot stride padded by envelope_pad (an "envelope" layout).
TensorSpec make_pool(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape) {
  TensorSpec t = make(c, dtype, std::move(shape), true);
  if (c.envelope_pad > 0 && t.shape[0] != 1)
    t.explicit_strides()[0] = t.shape[1] * t.shape[2] * t.shape[3] + c.envelope_pad;
  return t;
}

}  // namespace

TensorSpec compact_call_tensor(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape, std::size_t raw_from) {
  TensorSpec t;
  t.dtype = dtype;
  t.device = c.device;
  t.shape = std::move(shape);
  t.strides = compact_strides(t.shape);
  bool odd = false;
  for (std::size_t d = 0; d < t.shape.size() && d < raw_from; ++d) {
    if (t.shape[d] != 1 || c.unit_stride == 1) continue;
    t.strides[d] = c.unit_stride;
    odd = true;
  }
  t.null_strides = c.null_strides && !odd;
  return t;
}

CallSpec make_valid_spec(const CallConfig& c) {
  const int64_t B = c.B, H = c.H, HV = c.HV(), K = c.K, V = c.V, L = c.L, S = c.slots;
  const DLDataType act = to_dl(c.act), i32 = to_dl(ScalarType::Int32);
  CallSpec s;
  s.set("mixed_qkv", make(c, act, {B, 2 * H * K + HV * V}, true));
  s.set("a", make(c, act, c.a_3d ? std::vector<int64_t>{B, HV, K} : std::vector<int64_t>{B, HV * K}, true));
  s.set("b", make(c, act, {B, HV}, true));
  s.set("A_log", make(c, act, {HV}, true));
  s.set("dt_bias", make(c, act, c.dt_2d ? std::vector<int64_t>{HV, K} : std::vector<int64_t>{HV * K}, true));
  s.set("initial_state", make_pool(c, to_dl(c.state), {S, HV, V, K}));
  s.set("d_cache", make_pool(c, to_dl(c.ring), {S, HV, L, V}));
  s.set("k_cache", make_pool(c, to_dl(c.ring), {S, H, L, K}));
  s.set("g_cache", make_pool(c, to_dl(ScalarType::Float32), {S, HV, L, K}));
  s.set("out", make(c, to_dl(c.out), {B, 1, HV, V}, false));
  s.set("ssm_state_indices", make(c, to_dl(c.index), {B}, false));
  s.set("write_pos", make(c, i32, {B}, false));
  if (c.force_flush) s.set("force_flush", make(c, i32, {B}, false));
  s.backend = c.backend;
  return s;
}

}  // namespace kda::engine
