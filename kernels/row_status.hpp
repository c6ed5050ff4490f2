// The per-row outcome flags of the CUDA decode step (kda::cuda::replayssm_decode). C++17 and
// free of contract types, so the kernel source includes it too.
#pragma once
#include <cstdint>

namespace kda::cuda {

// Per-row outcome, written (when the caller passes a status tensor) as int32 bit flags.
// A row with any flag other than kRowPadding set is REJECTED: its out[row] is written with
// zeros and nothing else is read or written for it (no checkpoint, no ring record). Runtime
// values are judged on the device, so any content of ssm_state_indices / write_pos /
// force_flush is safe: the kernel reads and writes only inside the tensors it was given.
enum RowStatus : int32_t {
  kRowOk = 0,
  kRowPadding = 1,            // slot < 0: out[row] = 0, nothing else touched (not an error)
  kRowSlotOutOfRange = 2,     // slot >= slots
  kRowCursorOutOfRange = 4,   // write_pos[row], or a circular ring's cache_base[row], outside
                              // [0, L-1] (non-padding row)
  kRowDuplicateSlot = 8,      // another non-padding row names the same slot; EVERY row of
                              // that slot is flagged, so the outcome is order-independent
};

// A row is rejected when its status has any of these bits.
inline constexpr int32_t kRowRejectedMask = kRowSlotOutOfRange | kRowCursorOutOfRange | kRowDuplicateSlot;

}  // namespace kda::cuda
