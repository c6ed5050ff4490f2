// The ReplaySSM family's sample space: one description of the ranges and weights of every
// field of a case (CaseConfig, a rollout with data) and of a valid call (CallConfig, metadata
// only). Each operator's description points at these (sample_case, sample_call; its fit_case
// then makes a drawn case its own), and every front-end (counter draws, fuzz bytes,
// RapidCheck) draws through the description, so the suites differ only in their limits
// (engine/description/suite_limits.hpp).
#pragma once
#include "cases/case_config.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/chooser.hpp"
#include "engine/description/sample_space.hpp"

namespace kda::engine {

// A valid CaseConfig within the limits, its rollout_work() fitted under the work budget
// (fewer tokens first, then smaller heads, fewer rows, fewer value heads, a shorter ring),
// never below a limit's lower end.
CaseConfig sample_case(Chooser& c, const SampleLimits& limits);

// A valid call's configuration within the limits (rows, heads, K, V, L, dtypes, strided
// layouts); its other fields (slots from the live rows up, odd strides on size-1 dims, null
// or explicit strides, devices, backend) range over everything the contract accepts.
CallConfig sample_call_config(Chooser& c, const SampleLimits& limits);

}  // namespace kda::engine
