#include "bench/bench_case.hpp"

#include <fmt/format.h>

namespace kda::bench {

std::string BenchCase::label() const {
  const char* st = state == ScalarType::Float32 ? "f32" : state == ScalarType::BFloat16 ? "bf16" : "f16";
  return fmt::format("{}H{}/HV{} B{} L{} {}", op.gate_per_head ? "gdn " : op.ring_free ? "packed " : "", H, HV, B, L, st);
}

ModelShape BenchCase::model() const {
  CaseConfig c;
  c.H = H, c.HV = HV, c.K = K, c.V = V, c.B = B, c.L = L;
  c.act_dtype = act, c.state_dtype = state, c.ring_dtype = ring, c.out_dtype = out;
  c.index_dtype = ScalarType::Int32;
  c.force_flush = true;  // the benchmark passes it
  c.gate_per_head = op.gate_per_head;
  return engine::model_shape(c);
}

}  // namespace kda::bench
