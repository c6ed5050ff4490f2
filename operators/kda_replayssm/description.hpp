// SGLang's KDA ReplaySSM decode step (spec/contract.md, semantics.md) as an operator description.
#pragma once
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& kda_replayssm_operator();

}  // namespace kda::engine
