// fla_recurrent_kda as an operator description (docs/fla-recurrent-decode.md):
// flash-linear-attention's recurrent KDA decode, fused_recurrent_kda_fwd with continuous
// batching, its tensors under fla's keyword names.
#pragma once
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& fla_recurrent_kda_operator();

// A valid call's metadata (../fla_recurrent_common/call.hpp), g [B, T, HV, K] and dt_bias
// [HV * K].
CallSpec fla_recurrent_kda_valid_spec(const CallConfig& c);

}  // namespace kda::engine
