// fla_recurrent_kda as an operator description (docs/fla-recurrent-decode.md):
// flash-linear-attention's recurrent KDA decode, fused_recurrent_kda_fwd with continuous
// batching, its tensors under fla's keyword names.
#pragma once
#include <vector>

#include "engine/description/error_inputs.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& fla_recurrent_kda_operator();

// Its error inputs, in its check order (error_inputs.cpp).
std::vector<ErrorInput> fla_recurrent_kda_error_inputs();

// A valid call's metadata: CallConfig's B, H, group, K, V, slots, dtypes and `tokens` (T);
// 2-D indices when T > 1, num_accepted_tokens beside them; a K-first pool.
CallSpec fla_recurrent_kda_valid_spec(const CallConfig& c);

}  // namespace kda::engine
