// After `kda-harness check`'s suites: the first failing rollout of each cause (engine/reports/failure_cause.hpp)
// in the suites that judge a backend on drawn rollouts (kernel, kernel-truth) is rerun smaller
// (engine/driver/shrink.hpp) until no smaller config fails of the same cause; its CaseReport::shrunk
// then holds the replay of the smallest, which the failure listing and the JSON report print
// beside the original. Mutated cases (an invalid row), golden and envelope cases keep their
// own replay lines and are not shrunk.
#pragma once
#include <ostream>
#include <vector>

#include "engine/description/operator.hpp"
#include "tools/check_runner.hpp"

namespace kda::cli {

// `log` gets one line per case shrunk.
void shrink_failures(std::vector<SuiteResult>& results, const engine::OperatorDescription& op, std::ostream& log);

}  // namespace kda::cli
