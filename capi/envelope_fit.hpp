// Moves a drawn case inside a backend's envelope (plugin.h's kda_envelope), so the suites
// sample only calls the backend declares it takes: each dtype outside its set is replaced by
// one inside (chosen by the case's seed, so every allowed dtype appears), K and V clamped to
// their ranges, L to l_max, strided layouts dropped for a compact-only backend.
#pragma once
#include <optional>
#include <string>

#include "cases/case_config.hpp"
#include "kda_harness/plugin.h"

namespace kda::capi {

// Throws std::invalid_argument for an envelope that admits no call (an empty dtype set, a
// range without a power of two).
CaseConfig fit_to_envelope(CaseConfig c, const kda_envelope& envelope);

// The default reference work per drawn rollout case (rollout_work units): small cases that a
// Python step function, called once per token, runs through quickly.
inline constexpr double kDefaultWorkBudget = 2e5;

}  // namespace kda::capi

namespace kda::capi {

// A valid call just outside the envelope: `inside` with one property moved out (a dtype the
// envelope leaves out, K or V past its range, a longer ring than l_max, a strided layout for a
// compact-only backend), the `pick`-th of those the envelope excludes, and what was moved.
// nullopt when the envelope excludes nothing the sample space holds.
struct OutsideCall {
  CaseConfig config;
  std::string what;
};
std::optional<OutsideCall> outside_envelope(const CaseConfig& inside, const kda_envelope& envelope, uint64_t pick);

}  // namespace kda::capi
