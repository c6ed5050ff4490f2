// StepArgs by name: the one table from an argument's name in the specs to its field. Every
// place that turns a call into named tensors and scalars (the plugin ABI's kda_call, a built
// call's tensors, the device mirror, the metadata JSON) walks these tables, so an argument
// is added to the harness here and in StepArgs, nowhere else.
#pragma once
#include <array>
#include <optional>
#include <string_view>

#include "contract/step_args.hpp"

namespace kda {

struct TensorField {
  std::string_view name;
  const DLTensor* StepArgs::*input = nullptr;  // a tensor the step only reads
  DLTensor* StepArgs::*output = nullptr;       // one it writes (state, rings, out)
  const DLTensor* get(const StepArgs& a) const { return input ? a.*input : a.*output; }
  void set(StepArgs& a, DLTensor* t) const {
    if (input) a.*input = t;
    else a.*output = t;
  }
  bool written() const { return output != nullptr; }
};

// Tensors a call may leave out (null): force_flush, cache_base, num_accepted_tokens.
inline constexpr bool optional_tensor(std::string_view name) {
  return name == "force_flush" || name == "cache_base" || name == "num_accepted_tokens";
}

// Every tensor argument of every operator, in contract.md's order, gdn_replayssm's
// cache_base, then fla_recurrent_kda's own.
inline constexpr std::array<TensorField, 20> kStepTensors = {{
    {"mixed_qkv", &StepArgs::mixed_qkv},
    {"a", &StepArgs::a},
    {"b", &StepArgs::b},
    {"A_log", &StepArgs::A_log},
    {"dt_bias", &StepArgs::dt_bias},
    {"initial_state", nullptr, &StepArgs::initial_state},
    {"d_cache", nullptr, &StepArgs::d_cache},
    {"k_cache", nullptr, &StepArgs::k_cache},
    {"g_cache", nullptr, &StepArgs::g_cache},
    {"out", nullptr, &StepArgs::out},
    {"ssm_state_indices", &StepArgs::ssm_state_indices},
    {"write_pos", &StepArgs::write_pos},
    {"force_flush", &StepArgs::force_flush},
    {"cache_base", &StepArgs::cache_base},
    {"q", &StepArgs::q},
    {"k", &StepArgs::k},
    {"v", &StepArgs::v},
    {"g", &StepArgs::g},
    {"beta", &StepArgs::beta},
    {"num_accepted_tokens", &StepArgs::num_accepted_tokens},
}};

// A scalar argument as a double (booleans 0 or 1); get's nullopt: absent (lower_bound's None).
struct ScalarField {
  std::string_view name;
  std::optional<double> (*get)(const StepArgs& a);
  void (*set)(StepArgs& a, double v);
};

inline constexpr std::array<ScalarField, 11> kStepScalars = {{
    {"scale", [](const StepArgs& a) -> std::optional<double> { return a.scale; },
     [](StepArgs& a, double v) { a.scale = v; }},
    {"use_qk_l2norm_in_kernel", [](const StepArgs& a) -> std::optional<double> { return a.use_qk_l2norm_in_kernel; },
     [](StepArgs& a, double v) { a.use_qk_l2norm_in_kernel = v != 0.0; }},
    {"lower_bound", [](const StepArgs& a) { return a.lower_bound; }, [](StepArgs& a, double v) { a.lower_bound = v; }},
    {"nk", [](const StepArgs& a) -> std::optional<double> { return static_cast<double>(a.nk); },
     [](StepArgs& a, double v) { a.nk = static_cast<int64_t>(v); }},
    {"circular_replay", [](const StepArgs& a) -> std::optional<double> { return a.circular_replay; },
     [](StepArgs& a, double v) { a.circular_replay = v != 0.0; }},
    {"prefix_gate_cache", [](const StepArgs& a) -> std::optional<double> { return a.prefix_gate_cache; },
     [](StepArgs& a, double v) { a.prefix_gate_cache = v != 0.0; }},
    {"predecayed_k_cache", [](const StepArgs& a) -> std::optional<double> { return a.predecayed_k_cache; },
     [](StepArgs& a, double v) { a.predecayed_k_cache = v != 0.0; }},
    {"use_gate_in_kernel", [](const StepArgs& a) -> std::optional<double> { return a.use_gate_in_kernel; },
     [](StepArgs& a, double v) { a.use_gate_in_kernel = v != 0.0; }},
    {"use_beta_sigmoid_in_kernel", [](const StepArgs& a) -> std::optional<double> { return a.use_beta_sigmoid_in_kernel; },
     [](StepArgs& a, double v) { a.use_beta_sigmoid_in_kernel = v != 0.0; }},
    {"allow_neg_eigval", [](const StepArgs& a) -> std::optional<double> { return a.allow_neg_eigval; },
     [](StepArgs& a, double v) { a.allow_neg_eigval = v != 0.0; }},
    {"state_v_first", [](const StepArgs& a) -> std::optional<double> { return a.state_v_first; },
     [](StepArgs& a, double v) { a.state_v_first = v != 0.0; }},
}};

// The field of that name; nullptr for a name that is none.
inline const TensorField* tensor_field(std::string_view name) {
  for (const TensorField& f : kStepTensors)
    if (f.name == name) return &f;
  return nullptr;
}
inline const ScalarField* scalar_field(std::string_view name) {
  for (const ScalarField& f : kStepScalars)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace kda
