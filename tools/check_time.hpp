// What `check` adds after the verdict: the coverage of the backend suites (what the cases that
// ran tested, in the operator's words) and, with --time, the judged backend's step timed per
// shape class (engine/driver/step_timing.hpp). Neither decides pass or fail.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/check_runner.hpp"

namespace kda::cli {

// The backend suites that ran rollouts, together: how many, their steps (flushes and appends
// where the operator has a ring) and their configs' spread (engine::CaseStats); "" when none ran.
std::string coverage_text(const std::vector<SuiteResult>& results, const engine::OperatorDescription& op);
nlohmann::ordered_json coverage_json(const std::vector<SuiteResult>& results);

}  // namespace kda::cli
