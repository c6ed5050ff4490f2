#include "engine/reports/bytes_model.hpp"

#include <stdexcept>

#include "contract/scalar_type.hpp"

namespace kda::engine {

ModelShape model_shape(const CaseConfig& c) {
  ModelShape m;
  m.H = c.H, m.HV = c.HV, m.K = c.K, m.V = c.V, m.L = c.L;
  m.act = static_cast<int64_t>(size_of(c.act_dtype));
  m.state = static_cast<int64_t>(size_of(c.state_dtype));
  m.d_ring = m.k_ring = static_cast<int64_t>(size_of(c.ring_dtype));
  m.out = static_cast<int64_t>(size_of(c.out_dtype));
  m.index = static_cast<int64_t>(size_of(c.index_dtype));
  m.force_flush_present = c.force_flush;
  m.scalar_gate = c.gate_per_head;
  return m;
}

StepBytes row_bytes(const ModelShape& s, const RowStep& r) {
  StepBytes b;
  b.read += static_cast<double>(s.index);              // ssm_state_indices[row]
  b.write += static_cast<double>(s.HV * s.V * s.out);  // out[row], zeros for padding
  if (r.padding) return b;
  if (r.cursor < 0 || r.cursor >= s.L) throw std::invalid_argument("row_bytes: cursor outside [0, L-1]");
  if (!r.flush && r.cursor == s.L - 1) throw std::invalid_argument("row_bytes: cursor L-1 always flushes");
  const double c = static_cast<double>(r.cursor);
  b.read += 4.0 + (s.force_flush_present ? 4.0 : 0.0);                       // write_pos, force_flush
  b.read += static_cast<double>((2 * s.H * s.K + s.HV * s.V) * s.act);       // mixed_qkv row
  b.read += static_cast<double>((s.HV * s.gates() + s.HV) * s.act);          // a, b
  b.read += static_cast<double>(s.HV * s.V * s.K * s.state);                 // checkpoints
  b.read += c * static_cast<double>(s.HV * s.V * s.d_ring);                  // d records
  b.read += c * static_cast<double>(s.HV * s.gates() * 4);                   // g records (f32)
  b.read += c * static_cast<double>(s.H * s.K * s.k_ring);                   // k records, per group
  if (r.flush) {
    b.write += static_cast<double>(s.HV * s.V * s.K * s.state);
  } else {
    b.write += static_cast<double>(s.HV * s.V * s.d_ring + s.HV * s.gates() * 4 + s.H * s.K * s.k_ring);
  }
  return b;
}

StepBytes step_bytes(const ModelShape& s, const std::vector<RowStep>& rows) {
  StepBytes b;
  b.read += static_cast<double>((s.HV + s.HV * s.gates()) * s.act);  // A_log, dt_bias
  for (const RowStep& r : rows) b += row_bytes(s, r);
  return b;
}

StepBytes uniform_step_bytes(const ModelShape& s, int64_t B, int64_t cursor, bool flush) {
  return step_bytes(s, std::vector<RowStep>(static_cast<std::size_t>(B), RowStep{false, cursor, flush}));
}

StepBytes cycle_average_bytes(const ModelShape& s, int64_t B) {
  StepBytes sum;
  for (int64_t c = 0; c < s.L; ++c) sum += uniform_step_bytes(s, B, c, c == s.L - 1);
  const double n = static_cast<double>(s.L);
  return StepBytes{sum.read / n, sum.write / n};
}

StepBytes plain_decode_bytes(const ModelShape& s, int64_t B) {
  ModelShape plain = s;
  plain.L = 1;
  return uniform_step_bytes(plain, B, 0, true);
}

}  // namespace kda::engine
