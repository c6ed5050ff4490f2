#include "engine/driver/sensitivity.hpp"

#include <fmt/format.h>

#include "engine/backends/backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/run_case.hpp"

namespace kda::engine {

CaseConfig sensitivity_case(const SensitivityProbe& p, int64_t i) {
  CaseConfig c = p.op->fit_case(draw_case(*p.op, p.seed, static_cast<uint64_t>(i), limits::check_cases(2e6)));
  c.values = ValueMode::WellConditioned;
  if (p.tensor == "out") c.out_dtype = p.dtype;
  else if (p.tensor == "state") c.state_dtype = p.dtype;
  else if (p.tensor == "d" || p.tensor == "k") c.ring_dtype = p.dtype;
  if (p.tensor == "d" || p.tensor == "k" || p.tensor == "g") c.L = std::max<int64_t>(c.L, 4);
  return p.op->fit_case(c);
}

SensitivityResult measure_sensitivity(const SensitivityProbe& p) {
  for (double k = 1; k <= p.max_k; k *= 2) {
    const std::string spec = fmt::format("perturb:{}-{}:{}:{}", p.tensor, p.how, k, p.backend);
    for (int64_t i = 0; i < p.cases; ++i) {
      const CaseConfig c = sensitivity_case(p, i);
      const auto backend = make_backend(spec, *p.op);
      const CaseReport r = p.suite == "kernel-truth" ? run_vs_truth(c, *backend) : run_vs_reference(c, *backend);
      if (!r.pass()) return {k, i + 1, r.replay()};
    }
  }
  return {};
}

}  // namespace kda::engine
