// validate(): every check of contract.md, in its order (P0, W1-W3, V1-V22, R1-R10, then the
// harness extensions). Metadata only: it never reads or writes tensor data.
#pragma once
#include "contract/backend_kind.hpp"
#include "contract/contract_error.hpp"
#include "contract/step_args.hpp"

namespace kda {


// Returns the inferred dims, or throws ContractError with the first failing check's id and
// exact message.
Dims validate(const StepArgs& args, Backend backend = Backend::Any);

// The runtime-value extensions, on host-resident index tensors (the reference uses this; the
// kernel reports per row instead): slot index >= slots, write_pos outside [0, L-1] on a
// non-padding row, two non-padding rows naming one slot. Throws ContractError.
void check_runtime_values(const StepArgs& args, const Dims& dims);

}  // namespace kda
