#include "engine/plugin_call.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "contract/tensor_view.hpp"
#include <string>

namespace kda::engine {
namespace {

constexpr const char* kTensorNames[13] = {"mixed_qkv", "a",       "b",       "A_log", "dt_bias",
                                          "initial_state", "d_cache", "k_cache", "g_cache", "out",
                                          "ssm_state_indices", "write_pos", "force_flush"};
constexpr const char* kScalarNames[3] = {"scale", "use_qk_l2norm_in_kernel", "lower_bound"};

}  // namespace

bool known_plugin_op(const char* op) {
  return op != nullptr && (std::string(op) == kReplaySsmOp || std::string(op) == kPackedDecodeOp);
}

PluginCall::PluginCall(const StepArgs& a, void* stream, const char* op) {
  // The ABI passes non-const DLTensor pointers: a plugin may not write the inputs, and the
  // engine's footprint check catches one that does.
  const std::array<const DLTensor*, 13> given = {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, a.initial_state, a.d_cache,
                                                 a.k_cache, a.g_cache, a.out, a.ssm_state_indices, a.write_pos,
                                                 a.force_flush};
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] == nullptr) continue;
    views_[i] = *given[i];
    const std::vector<int64_t> st = strides_of(*given[i]);
    if (st.size() > strides_[i].size()) throw std::invalid_argument(std::string(kTensorNames[i]) + ": rank above 8");
    std::copy(st.begin(), st.end(), strides_[i].begin());
    views_[i].strides = strides_[i].data();
    tensors_[i] = &views_[i];
  }
  scalars_ = {a.scale, a.use_qk_l2norm_in_kernel ? 1.0 : 0.0, a.lower_bound.value_or(0.0)};
  present_ = {1, 1, static_cast<uint8_t>(a.lower_bound.has_value())};
  call_.op = op;
  call_.num_tensors = 13;
  call_.tensor_names = kTensorNames;
  call_.tensors = tensors_.data();
  call_.num_scalars = 3;
  call_.scalar_names = kScalarNames;
  call_.scalar_values = scalars_.data();
  call_.scalar_present = present_.data();
  call_.stream = stream;
}

StepArgs step_args_of(const kda_call& call) {
  if (!known_plugin_op(call.op))
    throw std::invalid_argument(std::string("not a ") + kReplaySsmOp + " or " + kPackedDecodeOp +
                                " call: " + (call.op ? call.op : "(null)"));
  StepArgs a;
  a.mixed_qkv = kda_call_tensor(&call, "mixed_qkv");
  a.a = kda_call_tensor(&call, "a");
  a.b = kda_call_tensor(&call, "b");
  a.A_log = kda_call_tensor(&call, "A_log");
  a.dt_bias = kda_call_tensor(&call, "dt_bias");
  a.initial_state = kda_call_tensor(&call, "initial_state");
  a.d_cache = kda_call_tensor(&call, "d_cache");
  a.k_cache = kda_call_tensor(&call, "k_cache");
  a.g_cache = kda_call_tensor(&call, "g_cache");
  a.out = kda_call_tensor(&call, "out");
  a.ssm_state_indices = kda_call_tensor(&call, "ssm_state_indices");
  a.write_pos = kda_call_tensor(&call, "write_pos");
  a.force_flush = kda_call_tensor(&call, "force_flush");
  double v = 0;
  if (kda_call_scalar(&call, "scale", &v)) a.scale = v;
  if (kda_call_scalar(&call, "use_qk_l2norm_in_kernel", &v)) a.use_qk_l2norm_in_kernel = v != 0.0;
  if (kda_call_scalar(&call, "lower_bound", &v)) a.lower_bound = v;
  return a;
}

}  // namespace kda::engine
