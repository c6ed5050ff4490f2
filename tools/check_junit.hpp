// `kda-harness check --junit FILE`: the suites as JUnit XML for CI dashboards. One
// <testsuite> per suite with one <testcase> per failed case ("case 7", a golden case with its
// name; its message, summary and replay line) and one for all the cases that passed ("12,000
// cases passed", their time summed), so that a default CPU check's report stays small; with
// `every_case`, one <testcase> per case instead. One <skipped> testcase for a suite that did not
// run.
#pragma once
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

std::string junit_report(const std::vector<SuiteResult>& results, double wall_seconds, bool every_case = false);

}  // namespace kda::cli
