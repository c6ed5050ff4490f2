// What every operator's contract is made of besides the catalog: the harness-misuse check of
// an argument, the throw of a catalog error, and the questions X-STRIDES and X-EXTENTS ask
// about one tensor (validate.cpp). The operators' stages are in their folders
// (operators/kda_common/contract_stages.hpp, operators/gdn_replayssm/contract_internal.hpp).
#pragma once
#include <string>

#include "contract/contract_error.hpp"
#include "contract/step_args.hpp"

namespace kda::detail {

[[noreturn]] inline void fail(const char* id, const std::string& message) { throw ContractError(id, message); }

// Harness misuse, not a contract error: a missing required argument, or a DLTensor that no
// framework can produce. Throws std::invalid_argument.
void check_well_formed(const DLTensor* t, const char* name, bool required);
// X-STRIDES' and X-EXTENTS' questions about one tensor (every operator's extensions ask them):
// a negative stride; an element count or storage byte extent beyond int64 (strides must be
// non-negative).
bool has_negative_stride(const DLTensor& t);
bool extent_fits(const DLTensor& t);

}  // namespace kda::detail
