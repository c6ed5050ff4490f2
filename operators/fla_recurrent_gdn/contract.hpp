// fla_recurrent_gdn's contract (docs/fla-recurrent-decode.md, "Gated DeltaNet"): the recurrent
// decode family's checks (../fla_recurrent_common/contract.hpp) with one gate per value head,
// g [B, T, HV] and dt_bias [HV], on the continuous-batching call (a pool updated in place at
// ssm_state_indices, num_accepted_tokens) that fla's KDA kernel has and its Gated DeltaNet
// kernel does not.
#pragma once
#include <array>
#include <string_view>

#include "contract/step_args.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda {

// Its tensor arguments by fla's keyword names; num_accepted_tokens is optional.
inline constexpr std::array<std::string_view, 11> kFlaRecurrentGdnTensors = {
    "q", "k", "v", "g", "beta", "A_log", "dt_bias", "initial_state", "ssm_state_indices", "num_accepted_tokens", "out"};
// Its scalar arguments, fla's keyword names (no lower_bound: fla's Gated DeltaNet gate is the
// softplus one only).
inline constexpr std::array<std::string_view, 6> kFlaRecurrentGdnScalars = {
    "scale", "use_qk_l2norm_in_kernel", "use_gate_in_kernel", "use_beta_sigmoid_in_kernel", "allow_neg_eigval",
    "state_v_first"};

// The call with every argument it does not take left null.
inline StepArgs fla_recurrent_gdn_args(StepArgs args) { return fla_recurrent_args(args, FlaGate::PerHead); }

inline Dims validate_fla_recurrent_gdn(const StepArgs& args, Backend backend = Backend::Any) {
  return validate_fla_recurrent(args, backend, FlaGate::PerHead);
}

}  // namespace kda
