// The end of `kda-harness check`: the summary table (suite, backend, cases, passed, failed,
// worst error against its tolerance, time), the failing cases with their replay lines, and
// the JSON report.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

std::string summary_table(const std::vector<SuiteResult>& results, double wall_seconds);
std::string failure_listing(const std::vector<SuiteResult>& results);
nlohmann::ordered_json json_report(const std::vector<SuiteResult>& results, double wall_seconds,
                                   const nlohmann::ordered_json& options);
bool all_passed(const std::vector<SuiteResult>& results);

}  // namespace kda::cli
