// Random CaseConfigs for `kda-harness check`, drawn with the harness's own counter-based
// generator (cases/rng.hpp): case `index` of seed `seed` is the same config on every
// machine. Every field the config has is varied (dtypes, index dtype, a/dt_bias layouts, L2
// norm, force_flush presence, envelope strides, both gates, GQA ratios 1..8, K and V powers
// of two 1..128, L 1..40, padding, forced flushes, divergent cursors, adversarial values);
// the shape is shrunk until the reference's work fits the budget.
#pragma once
#include <cstdint>

#include "cases/case_config.hpp"

namespace kda::cli {

CaseConfig draw_case(uint64_t seed, uint64_t index, double work_budget);

}  // namespace kda::cli
