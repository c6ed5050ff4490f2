// `kda-harness check --junit FILE`: the suites as JUnit XML for CI dashboards. One
// <testsuite> per suite with one <testcase> per case ("case 7", a golden case with its name;
// a failure with its message, summary and replay line), one <skipped> testcase for a suite
// that did not run.
#pragma once
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

std::string junit_report(const std::vector<SuiteResult>& results, double wall_seconds);

}  // namespace kda::cli
