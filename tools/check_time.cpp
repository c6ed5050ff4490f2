#include "tools/check_time.hpp"

#include <fmt/format.h>

#include "engine/description/operator_words.hpp"
#include "engine/driver/suites.hpp"

namespace kda::cli {
namespace {

// The backend suites' coverage summed: their configs and steps.
struct Summed {
  engine::CaseStats stats;
  int64_t tokens = 0, flushes = 0, appends = 0;
};

Summed summed(const std::vector<SuiteResult>& results) {
  Summed s;
  for (const SuiteResult& r : results) {
    const engine::SuiteInfo* info = engine::find_suite(r.name);
    if (info == nullptr || !info->judges_backend || r.skipped()) continue;
    s.stats.cases += r.coverage.cases, s.stats.production += r.coverage.production;
    for (const auto& [field, values] : r.coverage.counts)
      for (const auto& [value, n] : values) s.stats.counts[field][value] += n;
    s.tokens += r.tokens, s.flushes += r.flushes, s.appends += r.appends;
  }
  return s;
}

}  // namespace

std::string coverage_text(const std::vector<SuiteResult>& results, const engine::OperatorDescription& op) {
  const Summed s = summed(results);
  if (s.stats.cases == 0) return "";
  const std::string steps = engine::has_ring(op) ? fmt::format(" (rows: {} flushes, {} appends)", s.flushes, s.appends) : "";
  return fmt::format("coverage (what the backend suites' rollouts tested): {} tokens{}; ", s.tokens, steps) +
         s.stats.describe(op);
}

nlohmann::ordered_json coverage_json(const std::vector<SuiteResult>& results) {
  const Summed s = summed(results);
  nlohmann::ordered_json j;
  j["rollouts"] = s.stats.cases;
  j["tokens"] = s.tokens;
  j["flushes"] = s.flushes;
  j["appends"] = s.appends;
  j["counts"] = s.stats.counts;
  return j;
}

}  // namespace kda::cli
