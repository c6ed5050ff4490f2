#include "tools/check_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/reports/failure_cause.hpp"

namespace kda::cli {
namespace {

std::string worst_text(const SuiteResult& r) {
  if (r.worst_is_nan) return "NaN";
  if (r.worst_tolerance == 0) return "-";
  return fmt::format("{:.2e} / {:.2e} ({:.3f})", r.worst_error, r.worst_tolerance, r.worst_ratio);
}

}  // namespace

Verdict verdict(const std::vector<SuiteResult>& results) {
  int64_t judged = 0;
  for (const auto& r : results) {
    if (r.skipped()) continue;
    if (!r.ok()) return Verdict::Failed;
    judged += r.cases;
  }
  return judged > 0 ? Verdict::Passed : Verdict::NothingJudged;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Passed: return "passed";
    case Verdict::Failed: return "failed";
    case Verdict::NothingJudged: return "nothing judged";
  }
  return "";
}

std::string summary_table(const std::vector<SuiteResult>& results, double wall_seconds) {
  // Columns as wide as their longest entry (a plugin's backend name can be long).
  std::size_t name_width = 18, backend_width = 7;
  for (const auto& r : results) {
    name_width = std::max(name_width, r.name.size());
    backend_width = std::max(backend_width, r.backend.size());
  }
  const auto row = [&](const std::string& name, const std::string& backend, const std::string& cases,
                       const std::string& passed, const std::string& failed, const std::string& rest) {
    return fmt::format("{:<{}} {:<{}} {:>7} {:>7} {:>7}  {}\n", name, name_width, backend, backend_width, cases, passed,
                       failed, rest);
  };
  const std::size_t width = name_width + backend_width + 68;
  std::string s = row("suite", "backend", "cases", "passed", "failed",
                      fmt::format("{:<32} {:>8}", "worst error / tolerance (ratio)", "time"));
  s += std::string(width, '-') + "\n";
  int64_t cases = 0, passed = 0, failed = 0;
  for (const auto& r : results) {
    if (r.skipped()) {
      s += row(r.name, r.backend, "-", "-", "-", "skipped: " + r.skip_reason);
      continue;
    }
    s += row(r.name, r.backend, std::to_string(r.cases), std::to_string(r.passed), std::to_string(r.failed),
             fmt::format("{:<32} {:>7.1f}s", worst_text(r), r.seconds));
    cases += r.cases;
    passed += r.passed;
    failed += r.failed;
  }
  s += std::string(width, '-') + "\n";
  const Verdict v = verdict(results);
  s += row("total", "", std::to_string(cases), std::to_string(passed), std::to_string(failed),
           fmt::format("{:<32} {:>7.1f}s",
                       v == Verdict::Failed ? "FAILED" : v == Verdict::Passed ? "all passed" : "NOTHING JUDGED",
                       wall_seconds));
  if (v == Verdict::NothingJudged)
    s += "nothing judged: every suite was skipped (why: the table above) or ran no case; no verdict, not a pass\n";
  return s;
}

std::vector<FailureGroup> failure_groups(const SuiteResult& r) {
  std::vector<FailureGroup> groups;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    const std::string cause = engine::failure_cause(r.failures[i]);
    const auto [it, added] = at.emplace(cause, groups.size());
    if (added) groups.push_back({cause, {}});
    groups[it->second].failures.push_back(i);
  }
  return groups;
}

std::string failure_listing(const std::vector<SuiteResult>& results, std::size_t per_suite) {
  std::string s;
  for (const auto& r : results) {
    const std::vector<FailureGroup> groups = failure_groups(r);
    std::size_t shown = 0;
    for (std::size_t g = 0; g < groups.size() && g < per_suite; ++g) {
      const FailureGroup& group = groups[g];
      const engine::CaseReport& f = r.failures[group.failures.front()];
      s += fmt::format("[{}] {} failed case(s) of one cause: {}{}\n", r.name, group.failures.size(), group.cause,
                       group.failures.size() > 1 ? " (the first below)" : "");
      s += fmt::format("FAILED [{}] {}\n", r.name, f.summary());
      if (const std::string replay = f.replay(); !replay.empty()) s += fmt::format("  replay: {}\n", replay);
      if (!f.shrunk.empty()) s += fmt::format("  shrunk: {}\n", f.shrunk);
      ++shown;
    }
    if (const int64_t more = r.failed - static_cast<int64_t>(shown); more > 0)
      s += fmt::format("[{}] {} more failed case(s) not shown here; {}\n", r.name, more,
                       r.failures_left_out() > 0
                           ? fmt::format("--json FILE has the first {}, the other {} are only counted", r.failures.size(),
                                         r.failures_left_out())
                           : std::string("--json FILE has them all"));
  }
  return s;
}

nlohmann::ordered_json json_report(const std::vector<SuiteResult>& results, double wall_seconds,
                                   const nlohmann::ordered_json& options) {
  nlohmann::ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["tool"] = "kda-harness check";
  j["passed"] = verdict(results) == Verdict::Passed;
  j["verdict"] = verdict_name(verdict(results));
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
      for (const CaseOutcome& c : r.outcomes)
        if (c.kept >= 0) {
          const engine::CaseReport& f = r.failures[static_cast<std::size_t>(c.kept)];
          nlohmann::ordered_json failure = {
              {"case", c.index}, {"cause", engine::failure_cause(f)}, {"replay", f.replay()}, {"detail", f.summary()}};
          if (!f.shrunk.empty()) failure["shrunk"] = f.shrunk;
          s["failures"].push_back(std::move(failure));
        }
      s["failures_left_out"] = r.failures_left_out();
    }
    j["suites"].push_back(std::move(s));
  }
  return j;
}

}  // namespace kda::cli
