// The KDA path of SGLang's Triton ReplaySSM wrapper (is_kda=True) with its ring variants
// (spec/circular-replay.md) as an operator description.
#pragma once
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& kda_triton_replayssm_operator();

}  // namespace kda::engine
