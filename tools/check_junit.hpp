// `kda-harness check --junit FILE`: the suites as JUnit XML for CI dashboards. One
// <testsuite> per suite with one <testcase> (the suite's cases together; their count and the
// failures' replay lines are in it), <skipped> for a suite that did not run.
#pragma once
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

std::string junit_report(const std::vector<SuiteResult>& results, double wall_seconds);

}  // namespace kda::cli
