// THE KEY PROPERTY (semantics.md): a ReplaySSM rollout gives the plain recurrence's
// outputs at every token and its state at every flush.
// - pure double (ReplayModel<double>, float64 rings): relative error <= 1e-10;
// - the kernel's rounding points (replayssm_step, Rounding::Kernel) and no intermediate
//   rounding (Rounding::Off): within the tolerance model of reference/tolerance.cpp.
// The log shows rollouts per second and, per dtype set, the worst error against its bound.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "engine/driver/reference_vs_truth.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

using engine::CaseReport;
using engine::ReferenceModel;

struct Worst {
  int64_t rollouts = 0;
  double out_ratio = 0, state_ratio = 0, out_error = 0, state_error = 0, out_bound = 0, state_bound = 0;
  void add(const CaseReport& r) {
    ++rollouts;
    if (r.out.blocks && r.out.ratio() > out_ratio)
      out_ratio = r.out.ratio(), out_error = r.out.worst_error, out_bound = r.out.tolerance;
    if (r.state.blocks && r.state.ratio() > state_ratio)
      state_ratio = r.state.ratio(), state_error = r.state.worst_error, state_bound = r.state.tolerance;
  }
};

std::string dtype_set(const CaseConfig& c) {
  return fmt::format("act={:<8} state={:<8} ring={:<8} out={:<8}", name_of(c.act_dtype), name_of(c.state_dtype),
                     name_of(c.ring_dtype), name_of(c.out_dtype));
}

void print_worst(const char* title, const std::map<std::string, Worst>& by_set, bool per_set) {
  std::printf("%s\n", title);
  Worst all;
  for (const auto& [set, w] : by_set) {
    if (per_set)
      std::printf("  %s %5lld rollouts  out %.3e / %.3e = %.3f  state %.3e / %.3e = %.3f\n", set.c_str(),
                static_cast<long long>(w.rollouts), w.out_error, w.out_bound, w.out_ratio, w.state_error, w.state_bound,
                w.state_ratio);
    all.rollouts += w.rollouts;
    all.out_ratio = std::max(all.out_ratio, w.out_ratio);
    all.state_ratio = std::max(all.state_ratio, w.state_ratio);
  }
  std::printf("  all %lld rollouts: worst output error/bound %.3f, worst state error/bound %.3f\n",
              static_cast<long long>(all.rollouts), all.out_ratio, all.state_ratio);
}

TEST(ReferenceKeyProperty, RolloutEqualsPlainRecurrence) {
  std::map<std::string, Worst> kernel, off;
  Worst pure;
  int64_t rollouts = 0;
  const auto start = std::chrono::steady_clock::now();
  check_property("ReplaySSM rollout == plain recurrence", case_count("KDA_REFERENCE_CASES", 700), [&] {
    const CaseConfig c = *gen_case(engine::limits::reference_suites());
    const CaseReport p = engine::reference_vs_truth(c, ReferenceModel::PureDouble);
    if (!p.pass()) RC_FAIL("pure double: " + p.summary());
    const CaseReport k = engine::reference_vs_truth(c, ReferenceModel::Kernel);
    if (!k.pass()) RC_FAIL("kernel rounding: " + k.summary());
    const CaseReport o = engine::reference_vs_truth(c, ReferenceModel::Off);
    if (!o.pass()) RC_FAIL("rounding off: " + o.summary());
    pure.add(p);
    kernel[dtype_set(c)].add(k);
    off[dtype_set(c)].add(o);
    rollouts += 3;
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%lld rollouts (pure double, kernel rounding, rounding off) in %.1f s: %.1f rollouts/s\n",
              static_cast<long long>(rollouts), seconds, rollouts / seconds);
  std::printf("pure double vs plain float64: worst output %.3e, worst state %.3e (bound %.0e)\n", pure.out_error,
              pure.state_error, reference::kPureDoubleBound);
  print_worst("kernel rounding vs plain float64, per dtype set (error / bound = ratio):", kernel, true);
  print_worst("rounding off vs plain float64 (the kernel's bound):", off, false);
}

// The reference's throughput at Kimi-Linear's head size (printed, never asserted).
TEST(ReferenceKeyProperty, ThroughputAtK128V128) {
  const CaseConfig c = parse_case_config("B=3 H=2 HV=4 K=128 V=128 L=16 slots=5 steps=32 seed=7");
  const int n = case_count("KDA_REFERENCE_THROUGHPUT_ROLLOUTS", 10);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    CaseConfig ci = c;
    ci.seed += i;
    const CaseReport r = engine::reference_vs_truth(ci, ReferenceModel::Kernel);
    ASSERT_TRUE(r.pass()) << r.summary();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("K=V=128 (B=3 H=2 HV=4 L=16, 32 tokens, kernel rounding + float64 recurrence): %.1f rollouts/s, "
              "%.0f tokens/s\n", n / seconds, n * c.steps / seconds);
}

}  // namespace
}  // namespace kda::testing
