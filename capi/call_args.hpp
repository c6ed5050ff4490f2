// kda_call (the plugin ABI's named arguments) <-> StepArgs (the harness's arguments), both
// ways, without copying tensor data.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "contract/step_args.hpp"
#include "kda_harness/plugin.h"

namespace kda::capi {

// The operator this library drives.
inline constexpr const char* kReplaySsmOp = "kda_replayssm";

// The StepArgs a call names. Throws std::invalid_argument for an unknown or missing name, or
// an op other than kda_replayssm.
StepArgs to_step_args(const kda_call& call);

// A kda_call lending a StepArgs' tensors in contract.md's schema order, with strides always
// explicit (the plugin ABI promises them). Points into itself: neither copied nor moved.
class CallView {
 public:
  explicit CallView(const StepArgs& args);
  CallView(const CallView&) = delete;
  CallView& operator=(const CallView&) = delete;
  const kda_call* get() const { return &call_; }

 private:
  static constexpr int kMaxTensors = 13;
  std::array<DLTensor, kMaxTensors> tensors_{};
  std::array<std::vector<int64_t>, kMaxTensors> strides_;
  std::array<DLTensor*, kMaxTensors> pointers_{};
  std::array<const char*, kMaxTensors> names_{};
  std::array<double, 3> scalars_{};
  std::array<uint8_t, 3> present_{};
  kda_call call_{};
};

}  // namespace kda::capi
