// A decode step's arguments as the plugin ABI's kda_call (named DLTensors and scalars,
// contract.md's names in its order; an operator's absent tensors are NULL), and back.
#pragma once
#include <array>
#include <span>
#include <string_view>

#include "contract/step_args.hpp"
#include "contract/step_fields.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

class PluginCall {
 public:
  // Every tensor of contract/step_fields.hpp (null where the call has none), and the named
  // scalars.
  PluginCall(const StepArgs& args, void* stream, const char* op, std::span<const std::string_view> scalars);
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;
  const kda_call* get() const { return &call_; }

 private:
  // Copies of the argument views with explicit strides (the ABI never passes NULL strides);
  // they share the arguments' memory.
  static constexpr std::size_t kTensors = kStepTensors.size(), kScalars = kStepScalars.size();
  std::array<DLTensor, kTensors> views_{};
  std::array<std::array<int64_t, 8>, kTensors> strides_{};
  std::array<DLTensor*, kTensors> tensors_{};
  std::array<const char*, kTensors> tensor_names_{};
  std::array<const char*, kScalars> scalar_names_{};
  std::array<double, kScalars> scalars_{};
  std::array<uint8_t, kScalars> present_{};
  int32_t num_scalars_ = 0;
  kda_call call_{};
};

// The StepArgs a kda_call names (missing tensors stay null, missing scalars at their defaults).
StepArgs step_args_of(const kda_call& call);

}  // namespace kda::engine
