// fla_recurrent_kda's contract (docs/fla-recurrent-decode.md): flash-linear-attention 0.6.0's
// fused_recurrent_kda_fwd with continuous batching and its state pool updated in place, the
// family's checks (../fla_recurrent_common/contract.hpp) with a gate per key channel.
#pragma once
#include <array>
#include <string_view>

#include "contract/step_args.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda {

// Its tensor arguments by fla's keyword names, in its signature's order; num_accepted_tokens
// is optional (None: no speculative verify).
inline constexpr std::array<std::string_view, 11> kFlaRecurrentKdaTensors = {
    "q", "k", "v", "g", "beta", "A_log", "dt_bias", "initial_state", "ssm_state_indices", "num_accepted_tokens", "out"};
// Its scalar arguments, fla's keyword names.
inline constexpr std::array<std::string_view, 7> kFlaRecurrentKdaScalars = {
    "scale",           "use_qk_l2norm_in_kernel", "use_gate_in_kernel", "use_beta_sigmoid_in_kernel",
    "allow_neg_eigval", "lower_bound",            "state_v_first"};

// The call with every tensor it does not take left null.
inline StepArgs fla_recurrent_kda_args(StepArgs args) { return fla_recurrent_args(args, FlaGate::PerKey); }

// The family's checks (../fla_recurrent_common/contract.hpp) with a gate per key channel.
inline Dims validate_fla_recurrent_kda(const StepArgs& args, Backend backend = Backend::Any) {
  return validate_fla_recurrent(args, backend, FlaGate::PerKey);
}

}  // namespace kda
