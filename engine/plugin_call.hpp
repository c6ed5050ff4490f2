// A decode step's arguments as the plugin ABI's kda_call (named DLTensors and scalars,
// contract.md's names in its order; an operator's absent tensors are NULL), and back.
#pragma once
#include <array>

#include "contract/step_args.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

inline constexpr const char* kReplaySsmOp = "kda_replayssm";
inline constexpr const char* kPackedDecodeOp = "kda_packed_decode";  // no rings, write_pos or force_flush
// Whether a plugin's `op` names one of these.
bool known_plugin_op(const char* op);

class PluginCall {
 public:
  PluginCall(const StepArgs& args, void* stream, const char* op = kReplaySsmOp);
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;
  const kda_call* get() const { return &call_; }

 private:
  // Copies of the argument views with explicit strides (the ABI never passes NULL strides);
  // they share the arguments' memory.
  std::array<DLTensor, 13> views_{};
  std::array<std::array<int64_t, 8>, 13> strides_{};
  std::array<DLTensor*, 13> tensors_{};
  std::array<double, 3> scalars_{};
  std::array<uint8_t, 3> present_{};
  kda_call call_{};
};

// The StepArgs a kda_call names (missing tensors stay null; an unknown op throws
// std::invalid_argument).
StepArgs step_args_of(const kda_call& call);

}  // namespace kda::engine
