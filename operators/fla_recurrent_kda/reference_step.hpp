// fla_recurrent_kda's CPU reference step (docs/fla-recurrent-decode.md): the plain KDA
// recurrence of reference/ (prepare_head, plain_head_update), T tokens per row, on the pool in
// place. A live row starts from the state at slot idx[b, n - 1] (n = num_accepted_tokens[b],
// or 1 when absent), runs its T tokens and stores the state after token t at idx[b, t] (1-D
// indices: idx[b], T = 1); out[b, t, hv] = S (q * scale). A padding row (first index negative)
// reads and writes no state; its out holds zeros.
#pragma once
#include "contract/step_args.hpp"
#include "reference/rounding.hpp"

namespace kda::reference {

// Validates (validate_fla_recurrent_kda on the CPU, then the runtime values) and performs the
// step. Rounding::Kernel: float32 arithmetic, the stores of out and the pool the only rounding
// points; Rounding::Off: float64. Per-channel beta [B, T, HV, V] is not modelled
// (std::invalid_argument). Throws kda::ContractError before writing anything.
Dims fla_recurrent_kda_step(const StepArgs& args, Rounding rounding = Rounding::Kernel);

}  // namespace kda::reference
