// fla_recurrent_kda's contract (docs/fla-recurrent-decode.md): flash-linear-attention 0.6.0's
// fused_recurrent_kda_fwd with continuous batching and its state pool updated in place. fla
// itself asserts only that `out` has v's shape; every other check here is a harness
// extension (catalog ids X-FLA-...), for what its kernel silently gets wrong: ranks and
// shapes, strides it ignores, an index tensor whose rank does not fit T, index values.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

#include "contract/backend_kind.hpp"
#include "contract/step_args.hpp"

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
StepArgs fla_recurrent_kda_args(StepArgs args);

// Metadata only: the checks in the order of docs/fla-recurrent-decode.md; returns B, H, HV, K,
// V, slots (= N, initial_state.shape[0]) and T. Throws ContractError.
Dims validate_fla_recurrent_kda(const StepArgs& args, Backend backend = Backend::Any);

// The runtime values, on host-resident index tensors: a row is padding when its first index
// (idx[b], or idx[b, 0]) is negative; a live row's every index must name a slot of the pool
// (X-SLOT-INDEX), no slot may be named twice by live rows (X-DUP-SLOT), and a live row's
// num_accepted_tokens must lie in [1, T] (X-FLA-ACCEPTED). Throws ContractError.
void check_fla_runtime_values(const StepArgs& args, const Dims& dims);

// Index (row, token) of ssm_state_indices, 1-D ([B]: token 0 only) or 2-D ([B, T]), host data.
int64_t fla_index(const DLTensor& indices, int64_t row, int64_t token);
// The token whose stored state a live row resumes from: num_accepted_tokens[row] - 1 when
// given, else 0; and the slot it names.
int64_t fla_start_token(const StepArgs& args, int64_t row);
inline int64_t fla_start_slot(const StepArgs& args, int64_t row) {
  return fla_index(*args.ssm_state_indices, row, fla_start_token(args, row));
}
// The slot the state after token t is written to: idx[b, t] (2-D), idx[b] (1-D, T = 1).
inline int64_t fla_write_slot(const StepArgs& args, int64_t row, int64_t token) {
  return fla_index(*args.ssm_state_indices, row, token);
}

}  // namespace kda
