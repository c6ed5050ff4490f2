// The contract suites of `kda-harness check`: random VALID calls (metadata only) drawn from
// the operator's sample space (OperatorDescription::sample_call) within a suite's limits must pass
// validate() with the dims they were built with; then the same calls broken by sets of error
// inputs (operators/kda_replayssm/error_inputs.hpp) must fail with the EARLIEST broken check's catalog
// id and exact message, a message that matches exactly one catalog entry's pattern.
#pragma once
#include <cstdint>
#include <string>

#include "engine/description/operator.hpp"
#include "engine/description/sample_space.hpp"

namespace kda::cli {

struct SweepResult {
  bool pass = true;
  int64_t validations = 0;  // validate() calls made
  std::string config;       // the valid call, one line
  std::string detail;       // the first mismatch
};

// One case of the operator: its valid call `index` of `seed` and `mutation_sets` sets of up
// to `max_mutations` of its error inputs applied to it.
SweepResult contract_sweep_case(const engine::OperatorDescription& op, uint64_t seed, uint64_t index, const engine::SampleLimits& limits,
                                int mutation_sets, int max_mutations);

}  // namespace kda::cli
