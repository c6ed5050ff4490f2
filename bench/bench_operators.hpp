// The operators the benchmark steps: every operator of the harness's table
// (engine::operators(), which replayssm_bench's --op offers), in its order, with the layout of
// their inputs read from their descriptions. Whether our CUDA kernel serves one, its launcher
// and its benchmark rows are its row of the table of launchers (engine/backends/cuda_kernel.hpp, CUDA
// builds), which bench_runner reads.
#pragma once
#include <string_view>
#include <vector>

namespace kda::bench {

struct BenchOperator {
  std::string_view name;
  // One gate per value head: a [B, HV], dt_bias [HV], g_cache [slots, HV, L] (the operator's
  // case configs have CaseConfig::gate_per_head).
  bool gate_per_head = false;
  // No ring: its one step is the L = 1 one, timed as rows `packed`.
  bool ring_free = false;
};

// Every operator of the table, the default first.
const std::vector<BenchOperator>& bench_operators();
// The entry of that name; nullptr where the table has none.
const BenchOperator* bench_operator(std::string_view name);

}  // namespace kda::bench
