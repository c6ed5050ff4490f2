#include "tools/check_shrink.hpp"

#include <fmt/format.h>

#include <memory>
#include <set>
#include <string>

#include "engine/backends/backend.hpp"
#include "engine/reports/failure_cause.hpp"
#include "engine/driver/shrink.hpp"

namespace kda::cli {
namespace {

constexpr std::size_t kCausesShrunk = 5;  // per suite: as many as the listing shows

}  // namespace

void shrink_failures(std::vector<SuiteResult>& results, const engine::OperatorDescription& op, std::ostream& log) {
  for (SuiteResult& r : results) {
    if (r.name != "kernel" && r.name != "kernel-truth") continue;
    std::set<std::string> causes;
    for (engine::CaseReport& f : r.failures) {
      const std::string cause = engine::failure_cause(f);
      if (!causes.insert(cause).second) continue;
      if (causes.size() > kCausesShrunk) break;
      if (!engine::shrinkable(f)) continue;
      std::unique_ptr<engine::Backend> backend;
      try {
        backend = engine::make_backend(f.backend_spec, op);
      } catch (const std::exception&) {
        continue;  // it loaded for the suite: a backend that does not load again is not shrunk
      }
      const std::optional<engine::Shrunk> s = engine::shrink_failure(f, *backend);
      if (!s) continue;
      engine::CaseReport smaller = f;
      smaller.config = s->config;
      f.shrunk = smaller.replay();
      log << fmt::format("{}: shrank a failure of '{}' in {} reruns\n", r.name, cause, s->runs);
    }
  }
}

}  // namespace kda::cli
