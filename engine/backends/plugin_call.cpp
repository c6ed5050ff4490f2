#include "engine/backends/plugin_call.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"

namespace kda::engine {

PluginCall::PluginCall(const StepArgs& a, void* stream, const char* op, std::span<const std::string_view> scalars) {
  // The ABI passes non-const DLTensor pointers: a plugin may not write the inputs, and the
  // engine's footprint check catches one that does.
  for (std::size_t i = 0; i < kStepTensors.size(); ++i) {
    tensor_names_[i] = kStepTensors[i].name.data();
    const DLTensor* given = kStepTensors[i].get(a);
    if (given == nullptr) continue;
    views_[i] = *given;
    const std::vector<int64_t> st = strides_of(*given);
    if (st.size() > strides_[i].size())
      throw std::invalid_argument(std::string(kStepTensors[i].name) + ": rank above 8");
    std::copy(st.begin(), st.end(), strides_[i].begin());
    views_[i].strides = strides_[i].data();
    tensors_[i] = &views_[i];
  }
  if (scalars.size() > kStepScalars.size()) throw std::invalid_argument("more scalars than StepArgs holds");
  for (const std::string_view name : scalars) {
    const ScalarField* f = scalar_field(name);
    if (f == nullptr) throw std::invalid_argument("no scalar argument named " + std::string(name));
    const std::optional<double> v = f->get(a);
    scalar_names_[num_scalars_] = f->name.data();
    scalars_[num_scalars_] = v.value_or(0.0);
    present_[num_scalars_] = v.has_value();
    ++num_scalars_;
  }
  call_.op = op;
  call_.num_tensors = static_cast<int32_t>(kStepTensors.size());
  call_.tensor_names = tensor_names_.data();
  call_.tensors = tensors_.data();
  call_.num_scalars = num_scalars_;
  call_.scalar_names = scalar_names_.data();
  call_.scalar_values = scalars_.data();
  call_.scalar_present = present_.data();
  call_.stream = stream;
}

StepArgs step_args_of(const kda_call& call) {
  StepArgs a;
  for (const TensorField& f : kStepTensors) f.set(a, kda_call_tensor(&call, f.name.data()));
  for (const ScalarField& f : kStepScalars) {
    double v = 0;
    if (kda_call_scalar(&call, f.name.data(), &v)) f.set(a, v);
  }
  return a;
}

}  // namespace kda::engine
