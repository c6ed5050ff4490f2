// kda_replayssm's reference step restated (ContractRestatement::reference_step_holds, the
// second half of the contract fuzzer): an ACCEPTED call, when it is small and on the CPU, is
// materialized as real host tensors with the same shapes, strides and dtypes, filled with
// seeded values, with index / cursor / force_flush values from the choices (valid,
// padding, past the pool, negative, past the end, duplicate slots, raw integers), and run
// through reference::replayssm_step under the sanitizers. Judged:
//   - the runtime-value outcome, restated here (rows in order: slot >= slots -> X-SLOT-INDEX,
//     cursor outside [0, L-1] -> X-WRITE-POS, a slot named twice -> X-DUP-SLOT): an error
//     must be exactly that catalog error, and nothing may be written;
//   - otherwise the returned Dims, zero outputs on padding rows, and the footprint: no byte
//     of initial_state or the rings changes outside the checkpoints of flushing rows and the
//     ring records [slot, ., cursor] of appending rows (envelope gaps, other slots, other
//     records stay byte-identical).
#pragma once
#include <string>

#include "contract/step_args.hpp"
#include "engine/description/chooser.hpp"

namespace kda::restated {

// "" when fine or not run (too large, not on the CPU); else what went wrong.
std::string kda_replayssm_reference_step(const StepArgs& metadata, const Dims& dims, engine::Chooser& choices);

}  // namespace kda::restated
