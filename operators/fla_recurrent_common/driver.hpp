// How the engine's driver plays the recurrent decode family's cases (engine/driver/case_driver.hpp): its own
// tensors, rows (a row's start slot from num_accepted_tokens, its T written slots), footprint
// (out, and the pool's slots its live rows name), and oracles (oracles.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/driver/case_driver.hpp"

namespace kda::engine {

const CaseDriver& fla_recurrent_driver();

// Each row's plan: padding when its first index is negative; else the slot it resumes from,
// rejected where one of its indices lies outside the pool, its num_accepted_tokens outside
// [1, T] (as a cursor out of range) or a slot is named twice by live rows.
std::vector<RowPlan> plan_fla_rows(const StepArgs& host, const Dims& dims);
// The slots an accepted row's step writes: idx[b, 0..T-1], or idx[b].
std::vector<int64_t> fla_written_slots(const StepArgs& host, const Dims& dims, int64_t row);

// The oracles (oracles.cpp).
std::unique_ptr<Oracle> fla_reference_oracle(const CaseTensors& materialized, const OperatorDescription& op,
                                             Profile profile, bool directed);
std::unique_ptr<Oracle> fla_truth_oracle(const CaseTensors& materialized, const OperatorDescription&, Profile profile, bool directed);

}  // namespace kda::engine
