#include "tools/check_shrink.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include "engine/backend.hpp"
#include "engine/failure_cause.hpp"
#include "engine/run_case.hpp"
#include "engine/shrink.hpp"

namespace kda::cli {
namespace {

constexpr std::size_t kCausesShrunk = 5;  // per suite: as many as the listing shows
constexpr double kSecondsPerCase = 30;    // reruns of one case stop after this (a production shape reruns slowly)

bool shrinkable(const engine::CaseReport& f) {
  return f.replay_line.empty() && f.outside_envelope.empty() && (f.against == "reference" || f.against == "truth");
}

}  // namespace

void shrink_failures(std::vector<SuiteResult>& results, const engine::OperatorDescription& op, std::ostream& log) {
  for (SuiteResult& r : results) {
    if (r.name != "kernel" && r.name != "kernel-truth") continue;
    std::set<std::string> causes;
    for (engine::CaseReport& f : r.failures) {
      const std::string cause = engine::failure_cause(f);
      if (!causes.insert(cause).second) continue;
      if (causes.size() > kCausesShrunk) break;
      if (!shrinkable(f)) continue;
      std::unique_ptr<engine::Backend> backend;
      try {
        backend = engine::make_backend(f.backend_spec, op);
      } catch (const std::exception&) {
        continue;  // it loaded for the suite: a backend that does not load again is not shrunk
      }
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSecondsPerCase);
      const auto fails = [&](const CaseConfig& c) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        try {
          const engine::CaseReport again =
              f.against == "truth" ? engine::run_vs_truth(c, *backend) : engine::run_vs_reference(c, *backend);
          return !again.pass() && engine::failure_cause(again) == cause;
        } catch (const std::exception&) {
          return false;
        }
      };
      const std::optional<engine::Shrunk> s = engine::shrink_case(f.config, op, fails);
      if (!s) continue;
      engine::CaseReport smaller = f;
      smaller.config = s->config;
      f.shrunk = smaller.replay();
      log << fmt::format("{}: shrank a failure of '{}' in {} reruns\n", r.name, cause, s->runs);
    }
  }
}

}  // namespace kda::cli
