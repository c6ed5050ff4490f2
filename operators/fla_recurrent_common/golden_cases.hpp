// The recurrent decode family's golden cases, the same set for either gate width (each
// operator's description lists them; golden_specs() names them by their operator).
#pragma once
#include <vector>

#include "engine/description/golden_spec.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda::engine {

std::vector<golden::GoldenSpec> fla_recurrent_golden_cases(FlaGate gate);

}  // namespace kda::engine
