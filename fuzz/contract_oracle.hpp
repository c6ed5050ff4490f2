// The contract fuzzer's judgement of validate()'s answer on one call. It restates
// contract.md's conditions in a few lines each, on the raw DLPack metadata (wide integers,
// own contiguity and stride rules, brute-force overlap search on small tensors), so that it
// does not share the code paths it judges.
//   - A rejection must be a catalog error: its id in the catalog; its message matched by that
//     entry's messagePattern and by no other entry's; equal to the entry's message where the
//     entry has no placeholders, and to the message rebuilt here from the metadata for the
//     templates that take plain numbers and shapes; and the raised check's own condition must
//     hold for the call (an X-STRIDES rejection needs a negative stride, or two elements of a
//     written tensor at one address, ...). Some conditions (the flattened views' strides,
//     overlap of huge tensors) are left undecided rather than re-derived.
//   - An acceptance must satisfy every condition of contract.md and the extensions, and the
//     returned Dims must be the ones the shapes give.
// For the plain packed decode (op "kda_packed_decode") the same, with `a` and `dt_bias` as
// given (no W1-W3) and no rings, write_pos or force_flush (null in args); a rejection must
// also be an error the catalog says that operator raises. Another operator (gdn_replayssm)
// is judged by the catalog alone: a rejection's id listed for it, its message matched by
// exactly its entry (equal to a fixed one); an acceptance is not judged (its own tests and
// error inputs are, operators/gdn_replayssm/contract_test.cpp).
// Each function returns "" when the answer is right, else what is wrong.
#pragma once
#include <string>
#include <string_view>

#include "contract/contract_error.hpp"
#include "contract/validate.hpp"

namespace kda::fuzz {

std::string judge_rejection(const StepArgs& args, Backend backend, const ContractError& error,
                            std::string_view op = "kda_replayssm");
std::string judge_acceptance(const StepArgs& args, Backend backend, const Dims& dims,
                             std::string_view op = "kda_replayssm");

}  // namespace kda::fuzz
