// The benchmark steps every operator of the harness's table, and names none the table lacks.
#include <gtest/gtest.h>

#include <string>

#include "bench/bench_operators.hpp"
#include "engine/description/operator.hpp"

namespace {

TEST(BenchOperators, EveryOperatorOfTheTableHasAnEntry) {
  for (const kda::engine::OperatorDescription* op : kda::engine::operators())
    EXPECT_NE(kda::bench::bench_operator(op->name), nullptr) << op->name << " has no entry in bench/bench_operators.cpp";
}

TEST(BenchOperators, TheFirstIsTheTablesDefault) {
  EXPECT_EQ(kda::bench::bench_operators().front().name, kda::engine::default_operator().name);
}

TEST(BenchOperators, EveryEntryIsAnOperatorOfTheTable) {
  for (const kda::bench::BenchOperator& o : kda::bench::bench_operators())
    EXPECT_TRUE(kda::engine::has_operator(o.name)) << std::string(o.name) << " is not in operators/operator_table.cpp";
}

}  // namespace
