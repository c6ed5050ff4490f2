#include "property_tests/contract_call_spec.hpp"

#include <sstream>

#include "contract/checked_int.hpp"

namespace kda::test {

TensorSpec& TensorSpec::reshape(std::vector<int64_t> new_shape) {
  shape = std::move(new_shape);
  strides = compact_strides(shape);
  null_strides = false;
  return *this;
}

std::vector<int64_t>& TensorSpec::explicit_strides() {
  if (null_strides) {
    strides = compact_strides(shape);
    null_strides = false;
  }
  return strides;
}

std::vector<TensorSpec*> CallSpec::all() {
  std::vector<TensorSpec*> v{&mixed_qkv, &a, &b, &A_log, &dt_bias, &initial_state, &d_cache, &k_cache,
                             &g_cache, &out, &ssm_state_indices, &write_pos};
  if (force_flush) v.push_back(&*force_flush);
  return v;
}

BuiltCall::BuiltCall(const CallSpec& spec) {
  CallSpec copy = spec;
  for (TensorSpec* t : copy.all())
    tensors.push_back(HostTensor::metadata(t->dtype, t->shape, t->null_strides ? std::vector<int64_t>{} : t->strides,
                                           t->device, t->null_strides));
  has_force_flush = spec.force_flush.has_value();
}

StepArgs BuiltCall::args() {
  StepArgs s;
  s.mixed_qkv = &tensors[0].dl();
  s.a = &tensors[1].dl();
  s.b = &tensors[2].dl();
  s.A_log = &tensors[3].dl();
  s.dt_bias = &tensors[4].dl();
  s.initial_state = &tensors[5].dl();
  s.d_cache = &tensors[6].dl();
  s.k_cache = &tensors[7].dl();
  s.g_cache = &tensors[8].dl();
  s.out = &tensors[9].dl();
  s.ssm_state_indices = &tensors[10].dl();
  s.write_pos = &tensors[11].dl();
  s.force_flush = has_force_flush ? &tensors[12].dl() : nullptr;
  return s;
}

namespace {

// A compact tensor of the config: null strides when asked, and the configured odd stride on
// every size-1 dim except where a check reads the raw stride (`raw_last`: the last dim).
TensorSpec make(const ValidCallConfig& c, DLDataType dtype, std::vector<int64_t> shape, bool raw_last) {
  TensorSpec t;
  t.dtype = dtype;
  t.device = c.device;
  t.shape = std::move(shape);
  t.strides = compact_strides(t.shape);
  bool odd = false;
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] != 1 || c.unit_stride == 1 || (raw_last && d + 1 == t.shape.size())) continue;
    t.strides[d] = c.unit_stride;
    odd = true;
  }
  t.null_strides = c.null_strides && !odd;
  return t;
}

// Persistent state and rings: the slot stride padded by envelope_pad (an "envelope" layout).
TensorSpec make_pool(const ValidCallConfig& c, DLDataType dtype, std::vector<int64_t> shape) {
  TensorSpec t = make(c, dtype, std::move(shape), true);
  if (c.envelope_pad > 0 && t.shape[0] != 1) {
    t.explicit_strides()[0] = t.shape[1] * t.shape[2] * t.shape[3] + c.envelope_pad;
  }
  return t;
}

}  // namespace

CallSpec make_valid_spec(const ValidCallConfig& c) {
  const int64_t B = c.B, H = c.H, HV = c.HV(), K = c.K, V = c.V, L = c.L, S = c.slots;
  const DLDataType act = to_dl(c.act), i32 = to_dl(ScalarType::Int32);
  CallSpec s;
  s.mixed_qkv = make(c, act, {B, 2 * H * K + HV * V}, true);
  s.a = make(c, act, c.a_3d ? std::vector<int64_t>{B, HV, K} : std::vector<int64_t>{B, HV * K}, true);
  s.b = make(c, act, {B, HV}, true);
  s.A_log = make(c, act, {HV}, true);
  s.dt_bias = make(c, act, c.dt_2d ? std::vector<int64_t>{HV, K} : std::vector<int64_t>{HV * K}, true);
  s.initial_state = make_pool(c, to_dl(c.state), {S, HV, V, K});
  s.d_cache = make_pool(c, to_dl(c.ring), {S, HV, L, V});
  s.k_cache = make_pool(c, to_dl(c.ring), {S, H, L, K});
  s.g_cache = make_pool(c, to_dl(ScalarType::Float32), {S, HV, L, K});
  s.out = make(c, to_dl(c.out), {B, 1, HV, V}, false);
  s.ssm_state_indices = make(c, to_dl(c.index), {B}, false);
  s.write_pos = make(c, i32, {B}, false);
  if (c.force_flush) s.force_flush = make(c, i32, {B}, false);
  s.backend = c.backend;
  return s;
}

std::string to_string(const ValidCallConfig& c) {
  std::ostringstream os;
  showValue(c, os);
  return os.str();
}

void showValue(const ValidCallConfig& c, std::ostream& os) {
  auto dev = [](DLDevice d) {
    return (d.device_type == kDLCPU ? std::string("cpu:") : std::string("cuda:")) + std::to_string(d.device_id);
  };
  const char* backend = c.backend == Backend::Any ? "any" : c.backend == Backend::Cpu ? "cpu" : "cuda";
  os << "B=" << c.B << " H=" << c.H << " HV=" << c.HV() << " K=" << c.K << " V=" << c.V << " L=" << c.L
     << " slots=" << c.slots << " a3d=" << c.a_3d << " dt2d=" << c.dt_2d << " ff=" << c.force_flush
     << " env_pad=" << c.envelope_pad << " unit_stride=" << c.unit_stride << " null_strides=" << c.null_strides
     << " act=" << name_of(c.act) << " state=" << name_of(c.state) << " ring=" << name_of(c.ring)
     << " out=" << name_of(c.out) << " idx=" << name_of(c.index) << " device=" << dev(c.device)
     << " backend=" << backend;
}

}  // namespace kda::test
