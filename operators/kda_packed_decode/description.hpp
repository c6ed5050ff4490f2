// The plain packed KDA decode as an operator description (spec/packed-decode.md): a
// ReplaySSM call without rings, write_pos or force_flush, `a` 2-D and `dt_bias` 1-D.
#pragma once
#include <vector>

#include "engine/description/error_inputs.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& kda_packed_decode_operator();

// Its error inputs, in its check order (error_inputs.cpp).
std::vector<ErrorInput> packed_decode_error_inputs();

}  // namespace kda::engine
