// `check --isolate`: the cases of the suites that run the judged backend, each in a child
// process (fork), so that a backend that crashes, aborts, faults on the device or hangs costs
// one case, not the run. A child that dies by a signal, exits without a result or runs past
// the case timeout (then killed) gives a failed case carrying the case's replay line
// (SuiteSpec::replay); the run goes on with the next case. The parent runs no backend code:
// it forks up to `jobs` children at once and folds their reports as run_suite does. A child
// is judged by its wait status and its whole report, and its process group is ended with it
// (tools/child_group.hpp).
#pragma once
#include <string>

#include "engine/reports/case_report.hpp"
#include "tools/check_runner.hpp"

namespace kda::cli {

// Runs `spec` (which must have a replay function) with every case in its own child process;
// case_timeout_seconds <= 0: no limit.
SuiteResult run_suite_isolated(const SuiteSpec& spec, const Progress& progress, double case_timeout_seconds,
                               int64_t keep_failures = 5);

// A report as one line of JSON and back (what a child sends its parent), non-finite numbers
// included.
std::string report_to_wire(const engine::CaseReport& r);
engine::CaseReport report_from_wire(const std::string& text);

}  // namespace kda::cli
