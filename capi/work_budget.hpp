// The default size of drawn rollout cases: the defaults table's (engine/driver/defaults.hpp).
#pragma once
#include "engine/driver/defaults.hpp"

namespace kda::capi {

// Reference work per drawn rollout case (cases/case_config.hpp's rollout_work): small cases,
// which a Python step function called once per token runs through quickly.
inline constexpr double kDefaultWorkBudget = engine::defaults::kLibraryWorkBudget;

}  // namespace kda::capi
