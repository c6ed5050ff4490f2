// The contract the shared CPU example (cpu_example_plugin.cpp) checks a call with: each KDA
// operator's build of the example brings its own definition (operators/<op>/cpu_example_contract.cpp,
// listed in its kda_cpu_example SOURCE), so this folder names neither operator's contract.
#pragma once
#include "contract/step_args.hpp"

namespace kda::example {

// The operator's validate() on the CPU backend: the inferred dims, or a ContractError.
Dims validate_call(const StepArgs& args);

}  // namespace kda::example
