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
// "failures_left_out" (failures beyond those run_suite kept, counted but not listed).
constexpr int kJsonSchemaVersion = 2;

std::string summary_table(const std::vector<SuiteResult>& results, double wall_seconds);
// The first per_suite failures of each suite, with their replay lines, and how many more.
std::string failure_listing(const std::vector<SuiteResult>& results, std::size_t per_suite = 5);
nlohmann::ordered_json json_report(const std::vector<SuiteResult>& results, double wall_seconds,
                                   const nlohmann::ordered_json& options);
bool all_passed(const std::vector<SuiteResult>& results);

}  // namespace kda::cli
