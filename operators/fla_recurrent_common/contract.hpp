// The recurrent-decode family's contract (docs/fla-recurrent-decode.md): flash-linear-attention
// 0.6.0's recurrent decode with continuous batching and its state pool updated in place, with a
// gate per key channel (KDA, g [B, T, HV, K]) or one per value head (Gated DeltaNet, g
// [B, T, HV]). fla itself asserts only that `out` has v's shape; every other check here is a
// harness extension (catalog ids X-FLA-...), for what its kernels silently get wrong: ranks and
// shapes, strides they ignore, an index tensor whose rank does not fit T, index values.
#pragma once
#include <cstdint>

#include "contract/backend_kind.hpp"
#include "contract/step_args.hpp"

namespace kda {

// The gate's width: KDA's per key channel (g [B, T, HV, K], dt_bias [HV * K]) or Gated
// DeltaNet's one per value head (g [B, T, HV], dt_bias [HV]).
enum class FlaGate { PerKey, PerHead };

// The call with every argument the family does not take left null (and lower_bound, which
// fla's Gated DeltaNet kernel does not take, dropped for a gate per head).
StepArgs fla_recurrent_args(StepArgs args, FlaGate gate);

// Metadata only: the checks in the order of docs/fla-recurrent-decode.md, g and dt_bias of the
// gate's width; returns B, H, HV, K, V, slots (= N, initial_state.shape[0]) and T. Throws
// ContractError.
Dims validate_fla_recurrent(const StepArgs& args, Backend backend, FlaGate gate);

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
