// The default size of drawn rollout cases.
#pragma once

namespace kda::capi {

// Reference work per drawn rollout case (cases/case_config.hpp's rollout_work): small cases,
// which a Python step function called once per token runs through quickly.
inline constexpr double kDefaultWorkBudget = 2e5;

}  // namespace kda::capi
