// The two KDA contracts restated independently (engine/description/contract_restatement.hpp), each
// operator's description's restated_contract.
#pragma once
#include "engine/description/contract_restatement.hpp"

namespace kda::restated {

// contract.md: P0, W1-W3, V1-V22, R1-R10 and the extensions (kda_replayssm); packed:
// packed-decode.md, V1-V22 on `a` and `dt_bias` as given, the extensions without rings
// (kda_packed_decode). The reference step's restatement (reference_step_holds) is the
// operator's own to add.
engine::ContractRestatement kda_contract_restated(bool packed);

}  // namespace kda::restated
