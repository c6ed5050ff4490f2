// How small a deviation the suites notice, measured: a backend wrapped by a perturbation
// (engine/backends/perturb_backend.hpp) that moves what it writes to one tensor by k units of that
// tensor's dtype's roundoff, for k = 1, 2, 4, ... until a suite fails it within a number of
// cases. `kda-harness sensitivity` prints the matrix; a test keeps it from regressing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "contract/scalar_type.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

struct SensitivityProbe {
  const OperatorDescription* op = &default_operator();
  std::string backend = "reference";  // the backend perturbed
  std::string tensor = "out";         // out, state, d, k, g
  std::string how = "scale";          // scale, offset, ulp
  ScalarType dtype = ScalarType::BFloat16;  // of that tensor (g: float32 only)
  std::string suite = "kernel";       // kernel (vs the CPU reference step by step) or kernel-truth
  int64_t cases = 100;                // per k
  uint64_t seed = 1;
  double max_k = 1 << 20;
};

struct SensitivityResult {
  std::optional<double> smallest_k;  // none: no k up to max_k was caught
  int64_t cases_at_kill = 0;         // the case (1-based) that caught it
  std::string replay;                // that case's replay line
};

// Case i of a probe: drawn like the check's cases, with well-conditioned values, the probed
// tensor in the probed dtype and, for a ring tensor, a ring of at least 4 records.
CaseConfig sensitivity_case(const SensitivityProbe& p, int64_t i);

SensitivityResult measure_sensitivity(const SensitivityProbe& p);

}  // namespace kda::engine
