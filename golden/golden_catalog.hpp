// The curated golden set: every operator's golden cases (OperatorDescription::golden_cases,
// engine/description/golden_spec.hpp), in the table's order (operators/operator_table.cpp).
#pragma once
#include <vector>

#include "engine/description/golden_spec.hpp"

namespace kda::golden {

// Every case of the set, in a fixed order, names unique; each spec's op names the operator
// whose description lists it.
const std::vector<GoldenSpec>& golden_specs();

}  // namespace kda::golden
