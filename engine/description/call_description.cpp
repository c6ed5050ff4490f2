#include "engine/description/call_description.hpp"

#include <stdexcept>

#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"

namespace kda::engine {

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

TensorSpec* CallSpec::find(std::string_view name) {
  for (auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

const TensorSpec* CallSpec::find(std::string_view name) const { return const_cast<CallSpec*>(this)->find(name); }

TensorSpec& CallSpec::at(std::string_view name) {
  if (TensorSpec* t = find(name)) return *t;
  throw std::out_of_range("CallSpec: no tensor " + std::string(name));
}

const TensorSpec& CallSpec::at(std::string_view name) const { return const_cast<CallSpec*>(this)->at(name); }

TensorSpec& CallSpec::set(std::string_view name, TensorSpec t) {
  if (TensorSpec* old = find(name)) return *old = std::move(t);
  tensors.emplace_back(std::string(name), std::move(t));
  return tensors.back().second;
}

void CallSpec::erase(std::string_view name) {
  std::erase_if(tensors, [&](const auto& t) { return t.first == name; });
}

std::vector<TensorSpec*> CallSpec::all() {
  std::vector<TensorSpec*> v;
  for (auto& [n, t] : tensors) v.push_back(&t);
  return v;
}

BuiltCall::BuiltCall(const CallSpec& spec) {
  tensors_.reserve(spec.tensors.size());
  for (const auto& [name, t] : spec.tensors) {
    names_.push_back(name);
    tensors_.push_back(HostTensor::metadata(t.dtype, t.shape, t.null_strides ? std::vector<int64_t>{} : t.strides,
                                            t.device, t.null_strides));
  }
}

DLTensor* BuiltCall::tensor(std::string_view name) {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return &tensors_[i].dl();
  return nullptr;
}

TensorSpec spec_of(const DLTensor& d) {
  TensorSpec t;
  t.dtype = d.dtype;
  t.device = d.device;
  t.shape.assign(d.shape, d.shape + d.ndim);
  t.null_strides = d.strides == nullptr;
  if (d.strides) t.strides.assign(d.strides, d.strides + d.ndim);
  return t;
}

CallSpec spec_of(const StepArgs& args, std::span<const std::string_view> tensors, kda::Backend backend) {
  CallSpec s;
  for (std::string_view name : tensors) {
    const TensorField* f = tensor_field(name);
    if (f == nullptr) throw std::invalid_argument("no tensor argument named " + std::string(name));
    if (const DLTensor* t = f->get(args)) s.set(name, spec_of(*t));
  }
  s.backend = backend;
  return s;
}

StepArgs step_args(const std::function<DLTensor*(std::string_view)>& call) {
  StepArgs s;
  for (const TensorField& f : kStepTensors) f.set(s, call(f.name));
  return s;
}

}  // namespace kda::engine
