#include "tools/check_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kda::cli {
namespace {

std::string worst_text(const SuiteResult& r) {
  if (r.worst_is_nan) return "NaN";
  if (r.worst_tolerance == 0) return "-";
  return fmt::format("{:.2e} / {:.2e} ({:.3f})", r.worst_error, r.worst_tolerance, r.worst_ratio);
}

}  // namespace

bool all_passed(const std::vector<SuiteResult>& results) {
  for (const auto& r : results)
    if (!r.ok()) return false;
  return true;
}

std::string summary_table(const std::vector<SuiteResult>& results, double wall_seconds) {
  std::string s = fmt::format("{:<18} {:<7} {:>7} {:>7} {:>7}  {:<32} {:>8}\n", "suite", "backend", "cases", "passed",
                              "failed", "worst error / tolerance (ratio)", "time");
  s += std::string(92, '-') + "\n";
  int64_t cases = 0, passed = 0, failed = 0;
  for (const auto& r : results) {
    if (r.skipped()) {
      s += fmt::format("{:<18} {:<7} {:>7} {:>7} {:>7}  skipped: {}\n", r.name, r.backend, "-", "-", "-", r.skip_reason);
      continue;
    }
    s += fmt::format("{:<18} {:<7} {:>7} {:>7} {:>7}  {:<32} {:>7.1f}s\n", r.name, r.backend, r.cases, r.passed,
                     r.failed, worst_text(r), r.seconds);
    cases += r.cases;
    passed += r.passed;
    failed += r.failed;
  }
  s += std::string(92, '-') + "\n";
  s += fmt::format("{:<18} {:<7} {:>7} {:>7} {:>7}  {:<32} {:>7.1f}s\n", "total", "", cases, passed, failed,
                   failed ? "FAILED" : "all passed", wall_seconds);
  return s;
}

std::string failure_listing(const std::vector<SuiteResult>& results) {
  std::string s;
  for (const auto& r : results)
    for (const auto& f : r.failures) {
      s += fmt::format("FAILED [{}] {}\n", r.name, f.summary());
      if (const std::string replay = f.replay(); !replay.empty()) s += fmt::format("  replay: {}\n", replay);
    }
  return s;
}

nlohmann::ordered_json json_report(const std::vector<SuiteResult>& results, double wall_seconds,
                                   const nlohmann::ordered_json& options) {
  nlohmann::ordered_json j;
  j["tool"] = "kda-harness check";
  j["passed"] = all_passed(results);
  j["wall_seconds"] = wall_seconds;
  j["options"] = options;
  j["suites"] = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json s;
    s["suite"] = r.name;
    s["backend"] = r.backend;
    s["what"] = r.what;
    if (r.skipped()) {
      s["skipped"] = r.skip_reason;
    } else {
      s["cases"] = r.cases;
      s["passed"] = r.passed;
      s["failed"] = r.failed;
      s["seconds"] = r.seconds;
      if (r.worst_tolerance > 0 || r.worst_is_nan) {
        s["worst"] = {{"error", r.worst_is_nan ? nlohmann::ordered_json("NaN") : nlohmann::ordered_json(r.worst_error)},
                      {"tolerance", r.worst_tolerance},
                      {"ratio", r.worst_is_nan ? nlohmann::ordered_json("NaN") : nlohmann::ordered_json(r.worst_ratio)},
                      {"replay", r.worst_replay},
                      {"detail", r.worst_detail}};
      }
      s["failures"] = nlohmann::ordered_json::array();
      for (const auto& f : r.failures) s["failures"].push_back({{"replay", f.replay()}, {"detail", f.summary()}});
    }
    j["suites"].push_back(std::move(s));
  }
  return j;
}

}  // namespace kda::cli
