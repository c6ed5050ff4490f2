// The metadata of one call, operator-generic: every tensor argument as a plain TensorSpec
// (dtype, shape, strides, device) under its argument name, which error inputs and tests edit
// freely, turned into metadata-only DLTensors (no data) when the call is validated. An
// operator binds the built tensors to its own argument struct (step_args below, then its bind).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda::engine {

struct TensorSpec {
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // ignored when null_strides
  bool null_strides = true;
  DLDevice device{kDLCPU, 0};

  // New shape with compact explicit strides (dtype and device kept).
  TensorSpec& reshape(std::vector<int64_t> new_shape);
  // Explicit strides (the compact ones filled in first when they were null).
  std::vector<int64_t>& explicit_strides();
};

struct CallSpec {
  // In the operator's argument order; an optional argument that is absent is not listed.
  std::vector<std::pair<std::string, TensorSpec>> tensors;
  kda::Backend backend = kda::Backend::Any;

  // The named tensor (std::out_of_range when absent).
  TensorSpec& at(std::string_view name);
  const TensorSpec& at(std::string_view name) const;
  // nullptr when absent.
  TensorSpec* find(std::string_view name);
  const TensorSpec* find(std::string_view name) const;
  // Adds (last) or replaces the named tensor.
  TensorSpec& set(std::string_view name, TensorSpec t);
  void erase(std::string_view name);
  std::vector<TensorSpec*> all();
};

// Metadata-only DLTensors of a CallSpec.
class BuiltCall {
 public:
  explicit BuiltCall(const CallSpec& spec);
  // nullptr when the call has no such tensor.
  DLTensor* tensor(std::string_view name);

 private:
  std::vector<std::string> names_;
  std::vector<HostTensor> tensors_;  // same order
};

// The metadata of a tensor (data not copied).
TensorSpec spec_of(const DLTensor& t);
// The metadata of a step's named tensors, in that order (an absent optional one not listed).
CallSpec spec_of(const StepArgs& args, std::span<const std::string_view> tensors,
                 kda::Backend backend = kda::Backend::Any);

// StepArgs over a call's tensors, found by name among every argument of contract/step_fields.hpp
// (nullptr: absent; the scalars at their defaults).
StepArgs step_args(const std::function<DLTensor*(std::string_view)>& tensor);
inline StepArgs step_args(BuiltCall& call) {
  return step_args([&call](std::string_view name) { return call.tensor(name); });
}

}  // namespace kda::engine
