// The suites' sensitivity must not regress: a few cells of `kda-harness sensitivity` (the
// reference wrapped by a perturbation of one written tensor by k units of its dtype's
// roundoff; 20 cases of well-conditioned values per k) are caught at no larger k than they
// were when these ceilings were measured (`kda-harness sensitivity --cases 20`, seed 1).
#include <gtest/gtest.h>

#include "engine/backends/backend.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/driver/sensitivity.hpp"

namespace kda::engine {
namespace {

struct Cell {
  const char* tensor;
  ScalarType dtype;
  const char* suite;
  double ceiling;  // the smallest k caught when measured
};

TEST(Sensitivity, TheMeasuredCellsDoNotRegress) {
  const Cell cells[] = {
      {"out", ScalarType::BFloat16, "kernel", 2},  {"out", ScalarType::BFloat16, "kernel-truth", 1},
      {"out", ScalarType::Float32, "kernel", 128}, {"out", ScalarType::Float32, "kernel-truth", 64},
      {"state", ScalarType::BFloat16, "kernel", 4}, {"state", ScalarType::BFloat16, "kernel-truth", 1},
      {"k", ScalarType::Float16, "kernel", 2},     {"d", ScalarType::BFloat16, "kernel", 2},
  };
  for (const Cell& c : cells) {
    SensitivityProbe p;
    p.tensor = c.tensor;
    p.dtype = c.dtype;
    p.suite = c.suite;
    p.cases = 20;
    p.seed = 1;
    p.max_k = c.ceiling;
    const SensitivityResult r = measure_sensitivity(p);
    EXPECT_TRUE(r.smallest_k.has_value()) << c.tensor << " " << name_of(c.dtype) << " " << c.suite
                                          << ": no longer caught at k = " << c.ceiling;
  }
}

// The control: without a perturbation (k = 0) the reference passes the same cases, so what the
// cells catch is the perturbation.
TEST(Sensitivity, AnUnperturbedBackendIsNotCaught) {
  SensitivityProbe p;
  p.cases = 20;
  for (const char* suite : {"kernel", "kernel-truth"}) {
    p.suite = suite;
    for (int64_t i = 0; i < p.cases; ++i) {
      const CaseConfig c = sensitivity_case(p, i);
      const auto b = make_backend("perturb:out-scale:0:reference");
      const CaseReport r = p.suite == std::string("kernel-truth") ? run_vs_truth(c, *b) : run_vs_reference(c, *b);
      EXPECT_TRUE(r.pass()) << r.summary();
    }
  }
}

}  // namespace
}  // namespace kda::engine
