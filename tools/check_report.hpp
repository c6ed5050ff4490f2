// The end of `kda-harness check`: the summary table (suite, backend, cases, passed, failed,
// worst error against its tolerance, time), the failing cases with their replay lines, and
// the JSON report.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

// The JSON report's "schema_version": 2 added it, each failure's "case" and each suite's
// "failures_left_out" (failures beyond those run_suite kept, counted but not listed); 3 each
// failure's "cause" (engine/reports/failure_cause.hpp) and, where check shrank it, "shrunk"; 4 "coverage"
// (what the backend suites' rollouts tested) and, with --time, "time" (tools/check_time.hpp); 5
// "verdict" ("passed", "failed" or "nothing judged"; "passed" is true only for the first).
constexpr int kJsonSchemaVersion = 5;

// What a run decided: Passed (cases ran and none failed), Failed (a case failed), or
// NothingJudged (every suite skipped or ran no case: no verdict on anything, never a pass).
enum class Verdict { Passed, Failed, NothingJudged };
Verdict verdict(const std::vector<SuiteResult>& results);
const char* verdict_name(Verdict v);  // "passed", "failed", "nothing judged"

std::string summary_table(const std::vector<SuiteResult>& results, double wall_seconds);
// A suite's kept failures grouped by cause, in the order each cause first failed.
struct FailureGroup {
  std::string cause;
  std::vector<std::size_t> failures;  // indices into SuiteResult::failures
};
std::vector<FailureGroup> failure_groups(const SuiteResult& r);
// Per suite, the first per_suite causes: how many failed of each, the first one's report, its
// replay line and, where check shrank it, the smallest config that still fails; and how many
// failures are not shown.
std::string failure_listing(const std::vector<SuiteResult>& results, std::size_t per_suite = 5);
nlohmann::ordered_json json_report(const std::vector<SuiteResult>& results, double wall_seconds,
                                   const nlohmann::ordered_json& options);

}  // namespace kda::cli
