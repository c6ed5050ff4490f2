// CPU test of the benchmark's statistics: median, nearest-rank percentiles, per-step scaling.
#include "engine/reports/step_stats.hpp"

#include <gtest/gtest.h>

namespace kda::engine {
namespace {

TEST(BenchStats, OddCountMedianIsTheMiddleValueWhateverTheOrder) {
  const Stats s = summarize({5, 1, 4, 2, 3}, 1);
  EXPECT_DOUBLE_EQ(s.median_us, 3);
  EXPECT_EQ(s.samples, 5);
}

TEST(BenchStats, EvenCountMedianAveragesTheMiddlePair) {
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}, 1).median_us, 2.5);
}

TEST(BenchStats, PercentilesAreNearestRank) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, reversed
  const Stats s = summarize(v, 1);
  EXPECT_DOUBLE_EQ(s.p10_us, 10);  // rank ceil(0.1 * 100) = 10
  EXPECT_DOUBLE_EQ(s.p90_us, 90);
  EXPECT_DOUBLE_EQ(s.median_us, 50.5);
}

TEST(BenchStats, UnitsOfSeveralStepsReportPerStep) {
  const Stats s = summarize({80, 40, 120}, 8);  // e.g. cycles of L = 8 launches
  EXPECT_DOUBLE_EQ(s.median_us, 10);
  EXPECT_DOUBLE_EQ(s.p10_us, 5);
  EXPECT_DOUBLE_EQ(s.p90_us, 15);
}

TEST(BenchStats, NoSamplesGiveZeros) {
  const Stats s = summarize({}, 1);
  EXPECT_EQ(s.samples, 0);
  EXPECT_DOUBLE_EQ(s.median_us, 0);
}

}  // namespace
}  // namespace kda::engine
