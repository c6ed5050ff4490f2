// CPU throughput of the harness: how many reference
// rollouts per second the property tests and the fuzzers can afford at K = V = 128.
// Google Benchmark; items_per_second is rollouts/s (or steps/s for the step benchmarks).
#include <benchmark/benchmark.h>

#include "cases/case_config.hpp"
#include "engine/description/operator.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/reference_vs_truth.hpp"

namespace {

using kda::CaseConfig;
using kda::engine::ReferenceModel;

// A property-test-sized case: SGLang's test shapes (H = 2, HV = 4, L = 4, B = 3) at
// K = V = 128, 8 tokens, with padding, forced flushes and divergent cursors.
CaseConfig test_sized() {
  CaseConfig c;
  c.B = 3, c.H = 2, c.HV = 4, c.K = 128, c.V = 128, c.L = 4, c.slots = 5, c.steps = 8;
  return c;
}

void BM_Rollout(benchmark::State& state, ReferenceModel model) {
  CaseConfig c = test_sized();
  bool pass = true;
  for (auto _ : state) {
    ++c.seed;  // a fresh case each time, as a property test draws them
    const auto report = kda::engine::reference_vs_truth(c, model);
    pass = pass && report.pass();
    benchmark::DoNotOptimize(report.out.worst_error);
  }
  if (!pass) state.SkipWithError("a rollout failed its comparison");
  state.SetItemsProcessed(state.iterations());
  state.counters["tokens_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations() * c.steps), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_Rollout, kernel_rounding, ReferenceModel::Kernel)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Rollout, pure_double, ReferenceModel::PureDouble)->Unit(benchmark::kMillisecond);

// One reference step of the default operator (no comparison) at B rows of H = HV heads, L = 8,
// f32 state: the same call each time (the cursors as drawn, so each row's append or flush stays
// the one drawn).
void BM_ReferenceStep(benchmark::State& state) {
  const kda::engine::OperatorDescription& op = kda::engine::default_operator();
  CaseConfig c;
  c.B = state.range(0), c.H = c.HV = state.range(1), c.K = c.V = 128, c.L = 8, c.slots = c.B;
  c.pad_fraction = 0, c.flush_prob = 0.2, c.steps = 1;
  kda::CaseTensors t = kda::engine::materialize_case(op, c);
  for (auto _ : state) op.reference_step(t.args(), kda::reference::Rounding::Kernel);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReferenceStep)->Args({1, 4})->Args({8, 8})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
