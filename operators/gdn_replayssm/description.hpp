// SGLang's GDN ReplaySSM decode step (spec/gdn-replayssm.md) as an operator description.
#pragma once
#include "engine/description/operator.hpp"

namespace kda::engine {

const OperatorDescription& gdn_replayssm_operator();

}  // namespace kda::engine
