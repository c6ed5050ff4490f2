#include "bench/bench_operators.hpp"

namespace kda::bench {

const std::vector<BenchOperator>& bench_operators() {
  static const std::vector<BenchOperator> table = {
      {"kda_replayssm", false, false, true}, {"kda_packed_decode", false, true, false}, {"gdn_replayssm", true, false, false},
      {"kda_triton_replayssm", false, false, false, false}, {"fla_recurrent_kda", false, false, false, false},
      {"fla_recurrent_gdn", true, false, false, false}};
  return table;
}

const BenchOperator* bench_operator(std::string_view name) {
  for (const BenchOperator& o : bench_operators())
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace kda::bench
