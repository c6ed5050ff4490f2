// The sample space of ReplaySSM: one description of the ranges and weights of every field of
// a case (CaseConfig, a rollout with data) and of a valid call (CallConfig, metadata only),
// and the limits each suite samples under. Every front-end (counter draws, fuzz bytes,
// RapidCheck) draws through these functions, so the suites differ only in their limits.
#pragma once
#include "cases/case_config.hpp"
#include "engine/description/replayssm_call.hpp"
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

// Case `index` of `seed` drawn by the counter generator: the same config on every machine.
CaseConfig draw_case(uint64_t seed, uint64_t index, const SampleLimits& limits);

// The limits of the suites.
namespace limits {
// The GPU suites and the kernel fuzz target: K 1..256 (several K tiles), V 1..128, L 1..70
// (several ring chunks), up to 8 rows.
SampleLimits gpu_suites(double work_budget = 2e7);
// The reference suites: K and V 16..256, L 1..64, up to 4 rows and `max_tokens` tokens.
SampleLimits reference_suites(int64_t max_tokens = 64, double work_budget = 2.5e7);
// `kda-harness check`: K and V 1..128, L 1..40, up to 8 rows.
SampleLimits check_cases(double work_budget);
// The reference fuzz target: small shapes (K and V 1..32, L 1..17, up to 4 rows).
SampleLimits reference_fuzzing();
// Valid calls of the contract suites: B 1..64, H 1..8, HV/H 1..8, K and V 16..256, L 1..64.
SampleLimits contract_calls();
// Valid calls of the contract sweep: the same with B up to 1024 and K and V from 1 (metadata
// only, so sizes may reach past anything a test could allocate).
SampleLimits sweep_calls();
}  // namespace limits

}  // namespace kda::engine
