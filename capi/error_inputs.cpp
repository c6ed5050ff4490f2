#include "capi/error_inputs.hpp"

#include "contract/tensor_view.hpp"

namespace kda::capi {
namespace {

using Shape = std::vector<int64_t>;

// A zero-filled tensor of the old one's dtype (or `type`) with a new shape and strides.
HostTensor remade(const HostTensor& old, Shape shape, Shape strides = {}) {
  return HostTensor(old.type(), std::move(shape), std::move(strides));
}
Shape doubled(const Shape& shape) {
  Shape s = compact_strides(shape);
  for (auto& x : s) x *= 2;
  return s;
}
int64_t qkv_dim(const Dims& d) { return 2 * d.H * d.K + d.HV * d.V; }
void set_qkv_width(CaseTensors& t, const Dims& d, int64_t width) { t.mixed_qkv = remade(t.mixed_qkv, {d.B, width}); }

std::vector<ErrorInput> make() {
  return {
      {"W1", [](CaseTensors& t, const Dims& d) { t.a = remade(t.a, {d.B * d.HV * d.K}); }},
      {"W2", [](CaseTensors& t, const Dims& d) { t.dt_bias = remade(t.dt_bias, {d.HV, d.K, 1}); }},
      {"V1", [](CaseTensors& t, const Dims& d) { t.mixed_qkv = remade(t.mixed_qkv, {d.B, 1, qkv_dim(d)}); }},
      {"V2", [](CaseTensors& t, const Dims& d) { t.mixed_qkv = remade(t.mixed_qkv, {d.B, qkv_dim(d)}, doubled({d.B, qkv_dim(d)})); }},
      {"V3", [](CaseTensors& t, const Dims& d) { t.b = remade(t.b, {d.B, d.HV, 1}); }},
      {"V4", [](CaseTensors& t, const Dims& d) { t.b = remade(t.b, {d.B, d.HV}, doubled({d.B, d.HV})); }},
      {"V5", [](CaseTensors& t, const Dims& d) { t.A_log = remade(t.A_log, {d.HV, 1}); }},
      {"V6", [](CaseTensors& t, const Dims& d) { t.A_log = remade(t.A_log, {d.HV}, {2}); }},
      {"V7", [](CaseTensors& t, const Dims& d) { t.ssm_state_indices = remade(t.ssm_state_indices, {d.B, 1}); }},
      // Rows twice as far apart: not contiguous for B >= 2.
      {"V8", [](CaseTensors& t, const Dims& d) {
         t.out = remade(t.out, {d.B, 1, d.HV, d.V}, {2 * d.HV * d.V, d.HV * d.V, d.V, 1});
       }},
      {"V10", [](CaseTensors& t, const Dims& d) { t.b = remade(t.b, {d.B + 1, d.HV}); }},
      {"V11", [](CaseTensors& t, const Dims& d) { t.ssm_state_indices = remade(t.ssm_state_indices, {d.B + 1}); }},
      {"V12", [](CaseTensors& t, const Dims& d) { t.initial_state = remade(t.initial_state, {1, d.slots, d.HV, d.V, d.K}); }},
      {"V13", [](CaseTensors& t, const Dims& d) {
         t.initial_state = remade(t.initial_state, {d.slots, d.HV, d.V, d.K}, doubled({d.slots, d.HV, d.V, d.K}));
       }},
      {"V14", [](CaseTensors& t, const Dims& d) { t.initial_state = remade(t.initial_state, {d.slots, d.HV, d.V, 3}); }},
      {"V15", [](CaseTensors& t, const Dims& d) { t.a = remade(t.a, {d.B, 2 * d.HV * d.K}); }},
      {"V16", [](CaseTensors& t, const Dims& d) { t.b = remade(t.b, {d.B, d.HV + 1}); }},
      {"V17", [](CaseTensors& t, const Dims& d) { t.A_log = remade(t.A_log, {d.HV + 1}); }},
      {"V18", [](CaseTensors& t, const Dims& d) { t.dt_bias = remade(t.dt_bias, {d.HV * d.K + 1}); }},
      {"V19", [](CaseTensors& t, const Dims& d) { t.out = remade(t.out, {d.B, 1, d.HV, d.V + 1}); }},
      {"V20", [](CaseTensors& t, const Dims& d) { set_qkv_width(t, d, d.HV * d.V + 1); }},
      {"V21", [](CaseTensors& t, const Dims& d) { set_qkv_width(t, d, 2 * (d.H * d.K + 1) + d.HV * d.V); }},
      {"V22", [](CaseTensors& t, const Dims& d) { set_qkv_width(t, d, 2 * (d.HV + 1) * d.K + d.HV * d.V); }},
      {"R1", [](CaseTensors& t, const Dims& d) { t.write_pos = HostTensor(ScalarType::Int64, {d.B}); }},
      {"R2", [](CaseTensors& t, const Dims& d) { t.write_pos = HostTensor(ScalarType::Int32, {d.B + 1}); }},
      {"R3", [](CaseTensors& t, const Dims& d) { t.force_flush = HostTensor(ScalarType::Int32, {d.B + 1}); }},
      {"R4", [](CaseTensors& t, const Dims& d) { t.d_cache = remade(t.d_cache, {d.slots, d.HV, 0, d.V}); }},
      {"R5", [](CaseTensors& t, const Dims& d) { t.d_cache = remade(t.d_cache, {d.slots, d.HV + 1, d.L, d.V}); }},
      {"R6", [](CaseTensors& t, const Dims& d) { t.k_cache = remade(t.k_cache, {d.slots, d.H + 1, d.L, d.K}); }},
      {"R7", [](CaseTensors& t, const Dims& d) { t.g_cache = remade(t.g_cache, {d.slots, d.HV, d.L + 1, d.K}); }},
      {"R8", [](CaseTensors& t, const Dims& d) {
         t.g_cache = HostTensor(ScalarType::BFloat16, {d.slots, d.HV, d.L, d.K});
       }},
  };
}

}  // namespace

const std::vector<ErrorInput>& error_inputs() {
  static const std::vector<ErrorInput> inputs = make();
  return inputs;
}

}  // namespace kda::capi
