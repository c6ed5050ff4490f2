#include "engine/description/call_description.hpp"

#include <stdexcept>

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

}  // namespace kda::engine
