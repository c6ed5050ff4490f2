// Materialization: CaseConfig -> deterministic host tensors for a rollout. The random
// numbers come from the harness's own generator (cases/rng.hpp), never from std::
// distributions, so every platform and standard library produces the same bytes.
#pragma once
#include <optional>
#include <vector>

#include "cases/case_config.hpp"
#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"

namespace kda {

struct CaseTensors {
  CaseConfig config;
  // Per-token inputs (refilled by next_token).
  HostTensor mixed_qkv, a, b;
  // Fixed parameters.
  HostTensor A_log, dt_bias;
  double scale = 0;
  // Persistent state (the step reads and writes these in place).
  HostTensor initial_state, d_cache, k_cache, g_cache;
  HostTensor out;
  HostTensor ssm_state_indices;  // fixed over the rollout: one slot per row, or -1
  HostTensor write_pos;          // advanced by advance_cursors()
  std::optional<HostTensor> force_flush;
  int64_t token = 0;             // which token the per-token inputs hold

  // Views of all sixteen arguments (pointers into this object: do not move it while used).
  StepArgs args();
};

// Step 0: parameters, initial state (random checkpoint, rings filled up to each row's
// cursor with plausible records), indices, cursors, and token 0's inputs. Value ranges per
// ValueMode: cases/case_values.hpp. Every element a step must not read holds NaN: ring
// records at and past each cursor, the slots no row names, envelope gaps; out starts NaN.
// Each non-padding row names its own slot (a seeded permutation); padding rows hold -1.
// Throws std::invalid_argument for a config that is_valid_config() rejects.
CaseTensors materialize(const CaseConfig& config);
// Fills the per-token inputs (mixed_qkv, a, b, force_flush) for token t.
void fill_token(CaseTensors& c, int64_t t);
// The caller's protocol after a step: write_pos = 0 where the row flushed (cursor == L-1 or
// force_flush != 0), else write_pos + 1. Padding rows keep their value.
void advance_cursors(CaseTensors& c);

}  // namespace kda
