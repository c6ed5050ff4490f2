#include "bench/bench_operators.hpp"

#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"

namespace kda::bench {

const std::vector<BenchOperator>& bench_operators() {
  static const std::vector<BenchOperator> table = [] {
    std::vector<BenchOperator> ops;
    for (const engine::OperatorDescription* op : engine::operators())
      ops.push_back({op->name, op->fit_case(CaseConfig{}).gate_per_head, !engine::has_ring(*op)});
    return ops;
  }();
  return table;
}

const BenchOperator* bench_operator(std::string_view name) {
  for (const BenchOperator& o : bench_operators())
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace kda::bench
