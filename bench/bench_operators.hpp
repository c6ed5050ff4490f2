// How the benchmark steps each operator of the harness's table (engine::operators(), which
// replayssm_bench's --op offers): the layout of its inputs and the steps it times. The table
// names the operators; this says, for each, what the benchmark does with it
// (bench.operators checks that every operator of the table has an entry).
#pragma once
#include <string_view>
#include <vector>

namespace kda::bench {

struct BenchOperator {
  std::string_view name;
  // One gate per value head: a [B, HV], dt_bias [HV], g_cache [slots, HV, L] (GDN's layout).
  bool gdn = false;
  // The plain packed decode alone: no ring, so L = 1 and only its `packed` rows (kda_replayssm's
  // runs time the same step beside ReplaySSM's L = 1 decode).
  bool packed_only = false;
  // The peer's recorded table (../shared/peer, --peer-table) holds its rows.
  bool peer_record = false;
  // Our CUDA kernel serves it (the table's operators/cuda_kernel_table.cpp has its launcher);
  // an operator it does not serve is named here and refused by --op, never timed as another.
  bool kernel = true;
};

// Every operator the benchmark can step, the table's default first.
const std::vector<BenchOperator>& bench_operators();
// The entry of that name; nullptr where the benchmark has none.
const BenchOperator* bench_operator(std::string_view name);

}  // namespace kda::bench
