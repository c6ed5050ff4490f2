#include "bench/bench_case.hpp"

#include <fmt/format.h>

namespace kda::bench {

std::string BenchCase::label() const {
  const char* st = state == ScalarType::Float32 ? "f32" : state == ScalarType::BFloat16 ? "bf16" : "f16";
  return fmt::format("{}H{}/HV{} B{} L{} {}", op.gdn ? "gdn " : op.packed_only ? "packed " : "", H, HV, B, L, st);
}

ModelShape BenchCase::model() const {
  ModelShape m;
  m.H = H, m.HV = HV, m.K = K, m.V = V, m.L = L;
  m.act = static_cast<int64_t>(size_of(act));
  m.state = static_cast<int64_t>(size_of(state));
  m.d_ring = m.k_ring = static_cast<int64_t>(size_of(ring));
  m.out = static_cast<int64_t>(size_of(out));
  m.index = 4;
  m.force_flush_present = true;
  m.scalar_gate = op.gdn;
  return m;
}

}  // namespace kda::bench
