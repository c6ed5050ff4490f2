// kda_replayssm's CPU reference, the ReplaySSM decode step on the caller's host tensors
// (semantics.md, "The ReplaySSM step"): rebuild each row's state from the checkpoint initial_state[slot, hv] and the ring
// records j < write_pos[row], apply the current token, then either flush (write the new
// checkpoint; rings untouched) when write_pos == L-1 or force_flush[row] != 0, or append
// (write d, g at the cursor, and k once per query-head group; checkpoint untouched).
// Padding rows (slot < 0) write zeros to their out row and touch nothing else.
//
// Works on any strides the contract accepts (envelope state, strided rings), 2-D or 3-D a,
// 1-D or 2-D dt_bias, every float dtype per tensor, int32 or int64 indices.
#pragma once
#include "contract/step_args.hpp"
#include "reference/rounding.hpp"

namespace kda::reference {

// Validates (kda::validate(args, Backend::Cpu), then kda::check_runtime_values) and performs
// one step in place. Throws kda::ContractError on any error, before writing anything.
// Returns the validated dims.
Dims replayssm_step(const StepArgs& args, Rounding rounding = Rounding::Kernel);

}  // namespace kda::reference
