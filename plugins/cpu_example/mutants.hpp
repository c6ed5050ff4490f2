// Planted bugs of the CPU example plugin, one per build: KDA_MUTANT=<n> with KDA_MUTANT_NAME
// the bug's name (plugins/CMakeLists.txt builds one library per entry of kMutants and
// operator it is a bug of: a ring bug has no place in the plain packed decode, and each
// operator's beta rounding is the other's bug). Each is a plausible bug of the kind real
// decode kernels ship; `kda-harness mutants --op OP` checks that the harness catches every
// one. The shipped plugin has KDA_MUTANT undefined: planted() is then false everywhere and the
// hooks compile away.
#pragma once
#include <cstdint>
#include <string_view>

#include "kda_harness/plugin.h"

#ifndef KDA_EXAMPLE_PLUGIN_NAME
#define KDA_EXAMPLE_PLUGIN_NAME "cpu-example"
#endif

namespace kda::example {

enum class Mutant : int {
  None = 0,
  GqaHeadMod = 1,          // the q/k head of value head hv taken as hv % H, not hv / (HV/H)
  RingCursorOffByOne,      // the rebuild sums records 0..cursor (one too many: the unwritten one)
  NaturalFlushSkipped,     // cursor == L-1 does not flush: the row appends at L-1
  ForceFlushIgnored,       // force_flush is never read
  PaddingNotZeroed,        // padding rows leave out untouched
  PaddingWritten,          // a padding row (slot -1) computed as slot 0: out, state and rings written
  SlotIsRow,               // row b uses slot b, ignoring ssm_state_indices
  SlotZero,                // every row uses slot 0
  StateTransposed,         // the checkpoint read as [K, V] where it is [V, K]
  L2NormQOnly,             // use_qk_l2norm_in_kernel normalizes q only
  L2NormKOnly,             // ... k only
  BetaWithoutSigmoid,      // beta = b, not sigmoid(b)
  BoundedGateSoftplus,     // the softplus gate even where lower_bound is given
  GateTwice,               // the current token's decay exp(g) applied twice
  GRingSignFlipped,        // g_cache stores -g
  KeyRingWrongHead,        // the key ring record of query head h written with head (h+1) % H's key
  StridesIgnored,          // every tensor addressed as compact row-major, whatever its strides
  FlushWritesPastSlot,     // the flush loop runs one row past the checkpoint (into the next head or slot)
  KeyRingRace,             // every value head writes its group's key record, each from head hv % H
  WritesBeforeValidating,  // out zeroed before the call is validated: a refused call has written
  KeyOffsetUsesV,          // the key block of mixed_qkv taken to start at H*V, not H*K (seen only if K != V)
  BetaNotRounded,          // beta kept in float32, not rounded through b's dtype (a rounding point missed)
  RecordDecayOffByOne,     // ring record j decayed by exp(total - prefix_{j-1}): its own gate left out
  KeyRingUnnormalized,     // the key ring stores the key before its L2 norm
  EnvelopeNotEnforced,     // K or V beyond the declared envelope computed instead of refused
  BetaRoundedThroughB,     // the plain packed decode's beta rounded through b's dtype (it keeps it in float32)
  // gdn_replayssm's own (one scalar gate per value head):
  GateWrongHead,           // the gate of value head hv computed from query head h's a, dt_bias and A_log
  GRecordWrongCursor,      // the g record appended at cursor + 1, not at the cursor
  ARowStrideIgnored,       // a per-head gate `a` read as compact [B, HV]: its row stride ignored
  // A kernel that trusts its indices (SGLang's contract) and wraps them as Python does:
  PaddingAsLastSlot,       // a padding row (slot -1) computed as the pool's last slot
  // Circular rings (circular-replay.md):
  CircularPhysOffByOne,    // logical record j read and written at (cache_base + j + 1) mod L
  CircularWrapByMask,      // the physical slot as (cache_base + j) & (L-1), right only for a power-of-two L
  CircularBaseIgnored,     // cache_base never read: a circular ring indexed as a linear one
  HistoryAfterToken,       // the history checkpoint stores the state AFTER the token (a full checkpoint's)
  // Speculative verify (T tokens per row, num_accepted_tokens):
  ResumeAfterAccepted,     // a row resumes from the state at idx[b, n], not idx[b, n - 1]
  ResumeFirstToken,        // a row resumes from the state at idx[b, 0] whatever n is
  // Prefix gates and pre-decayed keys (kda_triton_replayssm):
  PrefixExclusive,         // a prefix-gate record stores the window total before its own gate (exclusive)
  PredecayTwice,           // a pre-decayed key ring decayed again in the rebuild: exp(total - prefix_j), not exp(total)
};

struct MutantInfo {
  Mutant id;
  std::string_view name;
};
inline constexpr MutantInfo kMutants[] = {
    {Mutant::GqaHeadMod, "gqa-head-mod"},
    {Mutant::RingCursorOffByOne, "ring-cursor-off-by-one"},
    {Mutant::NaturalFlushSkipped, "natural-flush-skipped"},
    {Mutant::ForceFlushIgnored, "force-flush-ignored"},
    {Mutant::PaddingNotZeroed, "padding-not-zeroed"},
    {Mutant::PaddingWritten, "padding-written"},
    {Mutant::SlotIsRow, "slot-is-row"},
    {Mutant::SlotZero, "slot-zero"},
    {Mutant::StateTransposed, "state-transposed"},
    {Mutant::L2NormQOnly, "l2norm-q-only"},
    {Mutant::L2NormKOnly, "l2norm-k-only"},
    {Mutant::BetaWithoutSigmoid, "beta-without-sigmoid"},
    {Mutant::BoundedGateSoftplus, "bounded-gate-softplus"},
    {Mutant::GateTwice, "gate-twice"},
    {Mutant::GRingSignFlipped, "g-ring-sign-flipped"},
    {Mutant::KeyRingWrongHead, "key-ring-wrong-head"},
    {Mutant::StridesIgnored, "strides-ignored"},
    {Mutant::FlushWritesPastSlot, "flush-writes-past-slot"},
    {Mutant::KeyRingRace, "key-ring-race"},
    {Mutant::WritesBeforeValidating, "writes-before-validating"},
    {Mutant::KeyOffsetUsesV, "key-offset-uses-v"},
    {Mutant::BetaNotRounded, "beta-not-rounded"},
    {Mutant::RecordDecayOffByOne, "record-decay-off-by-one"},
    {Mutant::KeyRingUnnormalized, "key-ring-unnormalized"},
    {Mutant::EnvelopeNotEnforced, "envelope-not-enforced"},
    {Mutant::BetaRoundedThroughB, "beta-rounded-through-b"},
    {Mutant::GateWrongHead, "gate-wrong-head"},
    {Mutant::GRecordWrongCursor, "g-record-wrong-cursor"},
    {Mutant::ARowStrideIgnored, "a-row-stride-ignored"},
    {Mutant::PaddingAsLastSlot, "padding-as-last-slot"},
    {Mutant::CircularPhysOffByOne, "circular-phys-off-by-one"},
    {Mutant::CircularWrapByMask, "circular-wrap-by-mask"},
    {Mutant::CircularBaseIgnored, "circular-base-ignored"},
    {Mutant::HistoryAfterToken, "history-after-token"},
    {Mutant::ResumeAfterAccepted, "resume-after-accepted"},
    {Mutant::ResumeFirstToken, "resume-first-token"},
    {Mutant::PrefixExclusive, "prefix-exclusive"},
    {Mutant::PredecayTwice, "predecay-twice"},
};

constexpr std::string_view mutant_name(Mutant m) {
  for (const MutantInfo& i : kMutants)
    if (i.id == m) return i.name;
  return "";
}

#ifdef KDA_MUTANT
inline constexpr Mutant kPlanted = static_cast<Mutant>(KDA_MUTANT);
// The number and the name come from one CMake list entry: a mismatch would build one bug
// under another's name.
static_assert(mutant_name(kPlanted) == KDA_MUTANT_NAME, "KDA_MUTANT and KDA_MUTANT_NAME disagree with kMutants");
#else
inline constexpr Mutant kPlanted = Mutant::None;
#endif

constexpr bool planted(Mutant m) { return kPlanted == m; }

// Whether this build checks the runtime index values (slot range, cursor range, duplicate
// slots) and declares KDA_INVALID_ROWS_RAISE, or trusts them as SGLang's kernels do and
// declares KDA_INVALID_ROWS_NONE: the unchecked example (KDA_EXAMPLE_UNCHECKED_INDICES) and
// the padding bugs' copies (where such bugs live: a kernel that checks its indices has
// nothing to wrap).
#ifdef KDA_EXAMPLE_UNCHECKED_INDICES
inline constexpr bool kChecksIndices = false;
#else
inline constexpr bool kChecksIndices =
    !planted(Mutant::PaddingNotZeroed) && !planted(Mutant::PaddingWritten) && !planted(Mutant::PaddingAsLastSlot);
#endif
inline constexpr int32_t kInvalidRows = kChecksIndices ? KDA_INVALID_ROWS_RAISE : KDA_INVALID_ROWS_NONE;

}  // namespace kda::example
