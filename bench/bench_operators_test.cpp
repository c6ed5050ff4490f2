// The benchmark's operators and launchers come from the tables (CUDA builds): the gate layout
// read from the descriptions tells our kernel's two kinds of operators apart, and each row of
// the table of launchers that names an operator to time beside its own L = 1 step names one
// the benchmark can time on the same tensors.
#include <gtest/gtest.h>

#include <string>

#include "bench/bench_operators.hpp"
#include "engine/backends/cuda_kernel.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"

namespace {

using kda::bench::bench_operator;

TEST(BenchOperators, OurKernelServesAnOperatorOfEachGateLayout) {
  bool per_head = false, per_channel = false;
  for (const kda::engine::OperatorDescription* op : kda::engine::operators())
    if (kda::engine::cuda_kernel_of(op->name) != nullptr)
      (bench_operator(op->name)->gate_per_head ? per_head : per_channel) = true;
  EXPECT_TRUE(per_head);
  EXPECT_TRUE(per_channel);
}

TEST(BenchOperators, WhatIsTimedBesideIsARingFreeOperatorOfTheSameLayoutThatOurKernelServes) {
  int rows = 0;
  for (const kda::engine::OperatorDescription* op : kda::engine::operators()) {
    const kda::engine::CudaKernel* k = kda::engine::cuda_kernel_of(op->name);
    if (k == nullptr || k->timed_beside.empty()) continue;
    ++rows;
    const std::string beside(k->timed_beside);
    ASSERT_TRUE(kda::engine::has_operator(beside)) << op->name << " times " << beside << ", which the table lacks";
    EXPECT_NE(kda::engine::cuda_kernel_of(beside), nullptr) << beside << ": our kernel does not serve it";
    EXPECT_TRUE(kda::engine::has_ring(*op)) << op->name << " has no ring: its L = 1 step is already ring-free";
    EXPECT_TRUE(bench_operator(beside)->ring_free) << beside;
    EXPECT_EQ(bench_operator(beside)->gate_per_head, bench_operator(op->name)->gate_per_head) << beside;
  }
  EXPECT_GT(rows, 0) << "no operator times another beside its L = 1 step (the packed rows)";
}

}  // namespace
