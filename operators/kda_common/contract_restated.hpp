// The two KDA contracts restated independently (engine/description/contract_restatement.hpp), each
// operator's description's restated_contract.
#pragma once
#include "engine/description/contract_restatement.hpp"

namespace kda::restated {

// contract.md: P0, W1-W3, V1-V22, R1-R10 and the extensions.
extern const engine::ContractRestatement kda_replayssm;
// packed-decode.md: V1-V22 on `a` and `dt_bias` as given, the extensions without rings.
extern const engine::ContractRestatement kda_packed_decode;

}  // namespace kda::restated
