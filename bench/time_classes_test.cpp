// `check --time` counts a shape class's bytes with the benchmark's model: for every class of
// every operator, the bytes equal those the benchmark counts for the same shape (BenchCase's
// model at the class's cursor), and the classes are the benchmark's.
#include <gtest/gtest.h>

#include "bench/bench_case.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/driver/step_timing.hpp"

namespace kda::bench {
namespace {

BenchCase bench_case_of(const engine::TimeClass& t, std::string_view op) {
  BenchCase b;
  b.H = t.config.H, b.HV = t.config.HV, b.K = t.config.K, b.V = t.config.V, b.B = t.config.B, b.L = t.config.L;
  b.state = t.config.state_dtype, b.act = t.config.act_dtype, b.ring = t.config.ring_dtype, b.out = t.config.out_dtype;
  b.op = *bench_operator(op);
  return b;
}

TEST(TimeClasses, BytesAreTheBenchmarksForTheSameShape) {
  for (const engine::OperatorDescription* op : engine::operators()) {
    const std::vector<engine::TimeClass> classes = engine::time_classes(*op, engine::Envelope{});
    ASSERT_EQ(classes.size(), engine::has_ring(*op) ? 6u : 2u) << op->name;
    for (const engine::TimeClass& t : classes) {
      const BenchCase b = bench_case_of(t, op->name);
      // The bench's append rows sit at append_cursor; L = 1 is its plain decode (a flush).
      EXPECT_EQ(t.cursor, append_cursor(b)) << t.name;
      const StepBytes bench = uniform_step_bytes(b.model(), b.B, append_cursor(b), b.L == 1);
      const StepBytes check = engine::class_bytes(t);
      // The bench passes force_flush; an operator without it reads 4 bytes a row fewer.
      const double no_force_flush = t.config.force_flush ? 0 : 4.0 * static_cast<double>(b.B);
      EXPECT_DOUBLE_EQ(check.total() + no_force_flush, bench.total()) << op->name << " " << t.name;
      EXPECT_GT(check.total(), 0);
    }
  }
}

TEST(TimeClasses, FittedIntoTheEnvelope) {
  engine::Envelope small;
  small.k_max = small.v_max = 64;
  small.l_max = 16;
  for (const engine::TimeClass& t : engine::time_classes(engine::default_operator(), small)) {
    EXPECT_EQ(small.excludes(t.config), "") << t.name;
    EXPECT_LE(t.config.L, 16) << t.name;
  }
}

}  // namespace
}  // namespace kda::bench
