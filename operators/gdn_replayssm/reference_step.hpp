// The CPU reference of one gdn_replayssm decode step (gdn-replayssm.md, "What it computes";
// circular-replay.md for circular rings): SGLang's GDN ReplaySSM, one scalar forget gate per
// value head. On the caller's host tensors, in place: rebuild each row's state from the
// checkpoint initial_state[slot, hv] and the window's records j < write_pos[row] at their
// physical slots (contract/ring_protocol.hpp: j, or (cache_base + j) mod L in a circular
// ring; d_cache[slot, hv, .], k_cache[slot, h, .], the scalar log-gate g_cache[slot, hv, .]),
// apply the current token, then as the row's RingStep says: a full checkpoint (exp(g) S +
// d k^T to the checkpoint; rings untouched), a history checkpoint (circular rings: the
// rebuilt state BEFORE the token to the checkpoint, and the record appended) or an append
// (d and g at phys(write_pos), the key once per query-head group). Padding rows (slot < 0)
// write zeros to their out row and touch nothing else. prefix_gate_cache is ignored on this
// path (the g ring holds raw gates); predecayed_k_cache is refused by the contract (P1).
#pragma once
#include "contract/step_args.hpp"
#include "reference/rounding.hpp"

namespace kda::gdn {

// rounding:
//  - Kernel: the harness's default rounding points (the 'helion' profile, as for
//    kda_replayssm) on this path, float32 arithmetic: beta through b's dtype; in the rebuild
//    the decayed deltas exp(total - prefix_j) d_j and the keys k_j rounded to out's dtype
//    before their product, products accumulated in float32; S k and S q summed in float32,
//    then multiplied by exp(g); every store rounded to nearest even to its tensor's dtype, g
//    stored float32, the key stored at k_cache's dtype. SGLang's Triton kernel also rounds the
//    key through out's dtype first and runs float32-out dots in TF32: what its profile
//    'triton' declares, and the bounds of that profile allow (as for kda_replayssm).
//  - Off: all arithmetic in double, no intermediate rounding; stores still land in each
//    tensor's dtype, beta still goes through b's dtype.
// The call must have passed the operator's contract (this does not validate). Returns the
// dims read from the shapes.
Dims gdn_replayssm_step(const StepArgs& args, reference::Rounding rounding);

// The dims of a call, read from the shapes (gdn-replayssm.md, "Arguments"): B, slots, HV, V, K,
// L, and H = ((qkv_dim - HV*V) / 2) / K. Only for a call that passed the contract.
Dims gdn_dims(const StepArgs& args);

}  // namespace kda::gdn
