// The limits each suite samples an operator's space under (SampleLimits: rows, heads, head
// dims, ring lengths, tokens, dtypes), named by suite so that every front-end of one suite
// (counter draws, fuzz bytes, RapidCheck) samples the same region.
#pragma once
#include "engine/description/sample_space.hpp"

namespace kda::engine {

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
