// The plain packed KDA decode on the caller's host tensors (spec/packed-decode.md): one token
// of the plain recurrence for every row and value head, in place. The state is read from
// initial_state[slot, hv], decayed, updated by the corrected delta, and written back rounded
// to the state's dtype; out[row, 0, hv] = S (q * scale) rounded to out's dtype. beta is the
// float32 sigmoid of b, NOT rounded through b's dtype. Padding rows (slot < 0) write zeros
// to their out row and leave the state untouched.
#pragma once
#include "contract/step_args.hpp"
#include "reference/rounding.hpp"

namespace kda::reference {

// Validates (kda::validate_packed_decode(args, Backend::Cpu), then the slot values) and
// performs the step. Rounding::Kernel: float32 arithmetic, the two stores the only rounding
// points; Rounding::Off: float64 arithmetic. Ring arguments in args are ignored. Throws
// kda::ContractError before writing anything. Returns the validated dims.
Dims packed_decode_step(const StepArgs& args, Rounding rounding = Rounding::Kernel);

}  // namespace kda::reference
