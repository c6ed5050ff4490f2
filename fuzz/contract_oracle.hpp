// The contract fuzzer's judgement of an operator's validate() answer on one call.
//   - A rejection must be a catalog error: its id in the catalog and listed for the operator;
//     its message matched by that entry's messagePattern and by no other's; equal to the
//     entry's message where the entry has no placeholders.
//   - Where the operator's description restates its contract (restated_contract,
//     engine/description/contract_restatement.hpp: the conditions written again on the raw metadata,
//     sharing no code path with validate()), also: a rejection's message equal to the one the
//     restatement rebuilds from the metadata, and the raised check's own condition true for the
//     call (an X-STRIDES rejection needs a negative stride, or two elements of a written tensor
//     at one address, ...; some conditions are left undecided rather than re-derived); an
//     acceptance must satisfy every condition, and the returned Dims must be the ones the
//     shapes give. An operator without one is judged by the catalog alone (its acceptances
//     by its own tests and error inputs).
// Each function returns "" when the answer is right, else what is wrong.
#pragma once
#include <string>

#include "contract/contract_error.hpp"
#include "contract/validate.hpp"
#include "engine/description/operator.hpp"

namespace kda::fuzz {

std::string judge_rejection(const engine::OperatorDescription& op, const StepArgs& args, Backend backend,
                            const ContractError& error);
std::string judge_acceptance(const engine::OperatorDescription& op, const StepArgs& args, Backend backend,
                             const Dims& dims);

}  // namespace kda::fuzz
