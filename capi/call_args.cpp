#include "capi/call_args.hpp"

#include <cstring>
#include <stdexcept>

#include "contract/tensor_view.hpp"

namespace kda::capi {
namespace {

constexpr const char* kScalarNames[3] = {"scale", "use_qk_l2norm_in_kernel", "lower_bound"};

// The tensor fields of StepArgs by contract.md name, in schema order.
struct TensorSlot {
  const char* name;
  bool required;
  DLTensor* StepArgs::*writable;         // for the tensors the step writes
  const DLTensor* StepArgs::*read_only;  // for the others
};
constexpr TensorSlot kTensorSlots[] = {
    {"mixed_qkv", true, nullptr, &StepArgs::mixed_qkv},
    {"a", true, nullptr, &StepArgs::a},
    {"b", true, nullptr, &StepArgs::b},
    {"A_log", true, nullptr, &StepArgs::A_log},
    {"dt_bias", true, nullptr, &StepArgs::dt_bias},
    {"initial_state", true, &StepArgs::initial_state, nullptr},
    {"d_cache", true, &StepArgs::d_cache, nullptr},
    {"k_cache", true, &StepArgs::k_cache, nullptr},
    {"g_cache", true, &StepArgs::g_cache, nullptr},
    {"out", true, &StepArgs::out, nullptr},
    {"ssm_state_indices", true, nullptr, &StepArgs::ssm_state_indices},
    {"write_pos", true, nullptr, &StepArgs::write_pos},
    {"force_flush", false, nullptr, &StepArgs::force_flush},
};

const DLTensor* slot_value(const StepArgs& a, const TensorSlot& s) { return s.writable ? a.*s.writable : a.*s.read_only; }

}  // namespace

StepArgs to_step_args(const kda_call& call) {
  if (call.op != nullptr && std::strcmp(call.op, kReplaySsmOp) != 0)
    throw std::invalid_argument(std::string("unknown operator '") + call.op + "' (this library knows kda_replayssm)");
  StepArgs a;
  std::array<bool, std::size(kTensorSlots)> seen{};
  for (int32_t i = 0; i < call.num_tensors; ++i) {
    const char* name = call.tensor_names[i];
    std::size_t k = 0;
    while (k < std::size(kTensorSlots) && std::strcmp(kTensorSlots[k].name, name) != 0) ++k;
    if (k == std::size(kTensorSlots)) throw std::invalid_argument(std::string("unknown tensor argument '") + name + "'");
    if (seen[k]) throw std::invalid_argument(std::string("tensor argument '") + name + "' given twice");
    seen[k] = true;
    const TensorSlot& s = kTensorSlots[k];
    if (s.writable) a.*s.writable = call.tensors[i];
    else a.*s.read_only = call.tensors[i];
  }
  for (std::size_t k = 0; k < std::size(kTensorSlots); ++k)
    if (kTensorSlots[k].required && slot_value(a, kTensorSlots[k]) == nullptr)
      throw std::invalid_argument(std::string("missing tensor argument '") + kTensorSlots[k].name + "'");
  for (int32_t i = 0; i < call.num_scalars; ++i) {
    const std::string name = call.scalar_names[i];
    const bool present = call.scalar_present == nullptr || call.scalar_present[i] != 0;
    const double v = call.scalar_values[i];
    if (name == "scale") {
      if (!present) throw std::invalid_argument("scalar 'scale' is required");
      a.scale = v;
    } else if (name == "use_qk_l2norm_in_kernel") {
      a.use_qk_l2norm_in_kernel = present && v != 0.0;
    } else if (name == "lower_bound") {
      if (present) a.lower_bound = v;
    } else {
      throw std::invalid_argument("unknown scalar argument '" + name + "'");
    }
  }
  return a;
}

CallView::CallView(const StepArgs& args) {
  int n = 0;
  for (const TensorSlot& s : kTensorSlots) {
    const DLTensor* t = slot_value(args, s);
    if (t == nullptr) continue;
    tensors_[n] = *t;
    strides_[n] = strides_of(*t);
    tensors_[n].strides = strides_[n].data();
    pointers_[n] = &tensors_[n];
    names_[n] = s.name;
    ++n;
  }
  scalars_ = {args.scale, args.use_qk_l2norm_in_kernel ? 1.0 : 0.0, args.lower_bound.value_or(0.0)};
  present_ = {1, 1, static_cast<uint8_t>(args.lower_bound.has_value())};
  call_.op = kReplaySsmOp;
  call_.num_tensors = n;
  call_.tensor_names = names_.data();
  call_.tensors = pointers_.data();
  call_.num_scalars = 3;
  call_.scalar_names = kScalarNames;
  call_.scalar_values = scalars_.data();
  call_.scalar_present = present_.data();
  call_.stream = nullptr;
}

}  // namespace kda::capi
