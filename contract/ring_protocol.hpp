// The ReplaySSM ring protocol of one live row (semantics.md, "The flush protocol";
// circular-replay.md, "Step kinds" and "Positions"): where logical record j lives, what a step
// does to the checkpoint and the ring, and how the caller advances (write_pos, cache_base)
// after it. The reference, the cases, the driver's row plan and footprint check and the
// truth all read it from here, so a linear and a circular ring differ in one place.
#pragma once
#include <cstdint>

namespace kda {

// What one step of a live row writes.
enum class RingStep : unsigned char {
  Append,   // the token's record at phys(w); the checkpoint untouched
  Full,     // the checkpoint = the state after the token; no ring write
  History,  // circular rings only: the checkpoint = the state BEFORE the token, and the record appended
};

struct RingCursor {
  bool circular = false;  // circular_replay: records start at cache_base and wrap at L
  int64_t L = 1;          // ring length (d_cache.shape[2])
  int64_t write_pos = 0;  // w: records in the window, in [0, L-1]
  int64_t base = 0;       // cache_base (circular only), in [0, L-1]

  // The physical slot of logical record j: (base + j) mod L circular, j linear.
  int64_t phys(int64_t j) const { return circular ? ((base + j) % L + L) % L : j; }
  // The step with `forced` (force_flush[row] != 0): a natural flush (w == L-1) is a full
  // checkpoint in a linear ring and a history checkpoint in a circular one (unless forced or L == 1).
  RingStep step(bool forced) const {
    const bool natural = write_pos == L - 1;
    if (forced || (natural && (!circular || L == 1))) return RingStep::Full;
    return natural ? RingStep::History : RingStep::Append;
  }
  // The caller's rule after a step of kind s: an append moves one on; a full checkpoint empties
  // the window (and a circular one restarts it at base 0, as SGLang does); a history checkpoint
  // leaves the window holding the token's record alone, at its physical slot.
  RingCursor after(RingStep s) const {
    RingCursor next = *this;
    switch (s) {
      case RingStep::Append: next.write_pos = write_pos + 1; break;
      case RingStep::Full: next.write_pos = 0, next.base = 0; break;
      case RingStep::History: next.write_pos = 1, next.base = phys(write_pos); break;
    }
    if (!circular) next.base = 0;
    return next;
  }
};

// "append", "flush" (full checkpoint), "history checkpoint".
inline const char* name_of(RingStep s) {
  return s == RingStep::Append ? "append" : s == RingStep::Full ? "flush" : "history checkpoint";
}

}  // namespace kda
