// The CPU reference of one kda_triton_replayssm decode step: the KDA path (is_kda=True) of
// SGLang's Triton ReplaySSM kernel with its ring variants (spec/circular-replay.md), on the
// caller's host tensors, in place. Per live row and value head: rebuild the state from the
// checkpoint initial_state[slot, hv] and the window's records j < write_pos[row] at their
// physical slots (contract/ring_protocol.hpp), apply the current token (semantics.md), then as
// the row's RingStep says: a full checkpoint (S diag(exp(g)) + d k^T; rings untouched), a
// history checkpoint (circular rings: the rebuilt state BEFORE the token, and the record
// appended) or an append (the record at phys(write_pos); the key once per query-head group).
// Padding rows (slot < 0) write zeros to their out row and touch nothing else.
//
// The variants, by the call's flags:
//  - circular_replay: record j at (cache_base + j) mod L, natural flushes history checkpoints;
//  - prefix_gate_cache: g_cache holds each record's window prefix, inclusive (g_0 + ... + g_j,
//    restarting with the window); the rebuild reads prefixes and the total from the ring, and
//    an appended record stores fl32(total + g), or g after a history checkpoint;
//  - predecayed_k_cache (with both, P1): k_cache holds k exp(-prefix_j); the rebuild scales it
//    by exp(total) once; an appended key is k / (exp(total) exp(g)) (k / exp(g) at a history
//    step) computed in float32 and rounded once to k_cache's dtype; beta stays unrounded.
#pragma once
#include "contract/step_args.hpp"
#include "reference/rounding.hpp"

namespace kda::kda_triton {

// rounding:
//  - Kernel: the harness's default rounding points in float32 arithmetic (as kda_replayssm's):
//    beta through b's dtype (not with pre-decayed keys); in the rebuild d_j and the decayed
//    key (k_j exp(total - prefix_j), or k_ring_j exp(total)) rounded to out's dtype before
//    their product, products accumulated in float32; every store rounded to nearest even to its
//    tensor's dtype (keys at k_cache's: SGLang's Triton kernel also rounds a raw key through
//    out's dtype first, which its 'triton' profile declares); g stored float32.
//  - Off: all arithmetic in double, no intermediate rounding; stores still land in each
//    tensor's dtype.
// The call must have passed the operator's contract and runtime values (this does not
// validate). Returns the dims read from the shapes.
Dims kda_triton_step(const StepArgs& args, reference::Rounding rounding);

}  // namespace kda::kda_triton
