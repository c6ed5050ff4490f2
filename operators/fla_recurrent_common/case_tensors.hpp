// The recurrent decode family's cases: a CaseConfig made one of its operators' (its keys chosen
// from the seed where the config has none), and its tensors, from the harness's counter-based
// generator (cases/rng.hpp) with cases/case_values.hpp's value ranges.
#pragma once
#include <cstdint>

#include "cases/case_config.hpp"
#include "cases/case_tensors.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda::engine {

// The config as the operator's of this gate width (gate_per_head; no lower_bound for a gate per
// head, which fla's Gated DeltaNet kernel does not take): no rings, cursors or forced flushes;
// where `tokens` is 0 the operator's keys are chosen from the seed: T = 1 in one case of two, else 2..4; [B, T] indices
// whenever T > 1 (one case in four at T = 1 too), num_accepted_tokens beside them in one case of
// two; a V-first pool, the gate and the beta sigmoid in the kernel each in one case of two; a
// zero pool in one case of four. Enough slots for each live row's T (2-D) indices.
CaseConfig fit_fla_case(CaseConfig c, FlaGate gate);

// The tensors of call 0 of the rollout: parameters (g and dt_bias per key channel, or per value
// head with gate_per_head), the pool (random states, or zeros, in the
// named slots; NaN in the others and in a strided pool's gaps), indices (each live row its own
// slots from a seeded permutation, padding rows -1 throughout), and call 0's inputs.
CaseTensors materialize_fla_case(const CaseConfig& config);
// Call `step`'s inputs: q, k, v, g, beta and num_accepted_tokens (in [1, T], drawn per row).
void fill_fla_step(CaseTensors& t, int64_t step);

}  // namespace kda::engine
