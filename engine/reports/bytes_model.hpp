// The bytes-moved model of one ReplaySSM decode step: the fewest bytes of device memory a
// step must read and write (each input read once, each output written once), from which the
// benchmark derives effective bandwidth. Derived from semantics.md, per row:
//   every row        reads its slot index (and its write_pos / force_flush entries when the
//                    row is not padding), writes out[row] (HV*V).
//   padding row      nothing else.
//   append / flush   read the token's inputs (q and k of H heads, v of HV heads, a: HV*G,
//                    b: HV), the checkpoint [V,K] per value head, and the ring records
//                    j < cursor: d (cursor*V per value head), g (cursor*G float32 per value
//                    head), k (cursor*K once per QUERY head: the group shares it).
//   append           writes d (V) and g (G, float32) at the cursor per value head, and k (K)
//                    once per query head.
//   flush            writes the checkpoint [V,K] per value head; the rings are not written.
// Per step (not per row): A_log (HV) and dt_bias (HV*G) are read once.
// G, the gates per value head: K (KDA, one per key channel) or 1 (GDN, scalar_gate).
// Each tensor counts at its own dtype's size.
// The one model of it: the benchmark (bench/) and `check --time` (engine/driver/step_timing.hpp) both
// count a step's bytes here, from the same shape (model_shape of a case config).
#pragma once
#include <cstdint>
#include <vector>

#include "cases/case_config.hpp"

namespace kda::engine {

struct ModelShape {
  int64_t H = 32, HV = 32, K = 128, V = 128, L = 8;
  // Element sizes in bytes.
  int64_t act = 2, state = 4, d_ring = 2, k_ring = 2, out = 2, index = 4;
  bool force_flush_present = true;
  bool scalar_gate = false;  // GDN: one gate per value head (G = 1), else one per key channel
  int64_t gates() const { return scalar_gate ? 1 : K; }
};

// What one row does in the step.
struct RowStep {
  bool padding = false;
  int64_t cursor = 0;  // records j < cursor are read
  bool flush = false;  // flush (checkpoint written) or append (ring records written)
};

struct StepBytes {
  double read = 0, write = 0;
  double total() const { return read + write; }
  StepBytes& operator+=(const StepBytes& o) { read += o.read; write += o.write; return *this; }
};

// The shape of a case config's step: its dims, each tensor's dtype size, whether force_flush
// is present and whether the gate is one per value head (gate=head).
ModelShape model_shape(const CaseConfig& c);

// One row's bytes (the per-step parameters excluded).
StepBytes row_bytes(const ModelShape& s, const RowStep& r);
// A whole step: the per-step parameters plus every row.
StepBytes step_bytes(const ModelShape& s, const std::vector<RowStep>& rows);
// B rows, all at `cursor`, all appending (cursor < L-1) or all flushing.
StepBytes uniform_step_bytes(const ModelShape& s, int64_t B, int64_t cursor, bool flush);
// The mean step of one L-step cycle: all B rows at cursor 0, 1, ..., L-1, the last flushing.
StepBytes cycle_average_bytes(const ModelShape& s, int64_t B);
// The plain decode of the same shape (L = 1: every step reads and writes the whole state).
StepBytes plain_decode_bytes(const ModelShape& s, int64_t B);

}  // namespace kda::engine
