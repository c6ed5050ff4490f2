// kda_replayssm's golden cases (its description's golden_cases).
#pragma once
#include <vector>

#include "engine/description/golden_spec.hpp"

namespace kda::engine {

std::vector<golden::GoldenSpec> kda_replayssm_golden_cases();

}  // namespace kda::engine
