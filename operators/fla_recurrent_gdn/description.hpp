// fla_recurrent_gdn as an operator description (docs/fla-recurrent-decode.md): Gated DeltaNet's
// recurrent decode with continuous batching (one gate per value head), its tensors under fla's
// keyword names.
#pragma once
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& fla_recurrent_gdn_operator();

// A valid call's metadata (../fla_recurrent_common/call.hpp), g [B, T, HV] and dt_bias [HV].
CallSpec fla_recurrent_gdn_valid_spec(const CallConfig& c);

}  // namespace kda::engine
