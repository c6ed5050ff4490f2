// The ReplaySSM family's case tensors (KDA and GDN, packed decode included): a CaseConfig made
// deterministic host tensors for a rollout, the per-token inputs refilled, and the ring cursors
// moved as the caller's protocol moves them. The random numbers come from the harness's own
// generator (cases/rng.hpp), never from std:: distributions, so every platform and standard
// library produces the same bytes. Per-token inputs (mixed_qkv, a, b, force_flush) are refilled
// by fill_token; A_log, dt_bias, scale and ssm_state_indices stay fixed; initial_state and the
// rings are read and written in place by each step; write_pos is advanced by advance_cursors().
// use_qk_l2norm_in_kernel and lower_bound mirror the config.
#pragma once
#include <cstdint>

#include "cases/case_tensors.hpp"
#include "contract/ring_protocol.hpp"

namespace kda {

// Step 0: parameters, initial state (random checkpoint, rings filled up to each row's
// cursor with plausible records), indices, cursors, and token 0's inputs. Value ranges per
// ValueMode: cases/case_values.hpp. Every element a step must not read holds NaN: ring
// records at and past each cursor, the slots no row names, envelope gaps; out starts NaN.
// Each non-padding row names its own slot (a seeded permutation); padding rows hold -1.
// Throws std::invalid_argument for a config that is_valid_config() rejects. A large case
// is filled row by row on several threads where the machine has cores to spare and no other
// thread is filling one (KDA_FILL_THREADS caps the threads; 1: one); the bytes are the same.
CaseTensors materialize_replayssm_case(const CaseConfig& config);
// Fills the per-token inputs (mixed_qkv, a, b, force_flush) for token t.
void fill_token(CaseTensors& c, int64_t t);
// The caller's protocol after a step (contract/ring_protocol.hpp): each live row's write_pos
// (and, in a circular ring, cache_base) advanced by the kind of step it took. Padding rows
// keep their values.
void advance_cursors(CaseTensors& c);
// Row `row`'s ring position as the tensors hold it (write_pos, cache_base, L, the mode), and
// back (cache_base written only in a circular ring).
RingCursor ring_cursor(const StepTensors& t, int64_t row);
void set_ring_cursor(StepTensors& t, int64_t row, const RingCursor& r);

}  // namespace kda
