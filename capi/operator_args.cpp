#include "capi/operator_args.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/backends/plugin_call.hpp"

namespace kda::capi {

const engine::OperatorDescription& operator_of(const kda_call* call) {
  if (call == nullptr) throw std::invalid_argument("call is NULL");
  if (call->op == nullptr) throw std::invalid_argument("call->op is NULL (" + engine::operator_names(", ") + ")");
  return engine::find_operator(call->op);
}

StepArgs operator_args(const kda_call* call, const engine::OperatorDescription& op) {
  for (int32_t i = 0; i < call->num_scalars; ++i)
    if (std::strcmp(call->scalar_names[i], "scale") == 0 && call->scalar_present && !call->scalar_present[i])
      throw std::invalid_argument("scalar 'scale' is required");
  const auto takes = [&op](std::string_view name) {
    return std::find(op.tensors.begin(), op.tensors.end(), name) != op.tensors.end();
  };
  for (int32_t i = 0; i < call->num_tensors; ++i)
    if (call->tensors[i] != nullptr && !takes(call->tensor_names[i]))
      throw std::invalid_argument(std::string(op.name) + " takes no tensor '" + call->tensor_names[i] + "'");
  for (std::string_view name : op.tensors)
    if (!optional_tensor(name) && kda_call_tensor(call, std::string(name).c_str()) == nullptr)
      throw std::invalid_argument("missing tensor argument '" + std::string(name) + "'");
  return op.bind(engine::step_args_of(*call));
}

}  // namespace kda::capi
