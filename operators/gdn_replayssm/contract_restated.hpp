// gdn_replayssm's contract restated independently (engine/description/contract_restatement.hpp), its
// description's restated_contract: G1-G32 and the harness extensions after them.
#pragma once
#include "engine/description/contract_restatement.hpp"

namespace kda::restated {

extern const engine::ContractRestatement gdn_replayssm;

}  // namespace kda::restated
