// The metadata of one call, operator-generic: every tensor argument as a plain TensorSpec
// (dtype, shape, strides, device) under its argument name, which error inputs and tests edit
// freely, turned into metadata-only DLTensors (no data) when the call is validated. An
// operator binds the built tensors to its own argument struct (engine/description/replayssm_call.hpp).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/host_tensor.hpp"
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

}  // namespace kda::engine
