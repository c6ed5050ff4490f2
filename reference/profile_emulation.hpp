// CPU emulations of the kernels' rounding profiles (semantics.md "Kernel profiles"), written
// independently of replayssm_step: every float32 operation, every conversion to a narrower
// dtype, every dot operand and every store is rounded explicitly, one operation at a time, so
// that the error analysis of tolerance.cpp can be checked against a computation that has
// exactly the rounding points it names, in either of two modes:
//   - Typical: what the hardware does: round to nearest even, except that Triton's TF32 dot
//     operands are truncated (the tensor core reads float32 registers and drops the low 13
//     mantissa bits: round toward zero, a relative error below 2^-10, always of one sign);
//   - Directed: the worst case: every rounding point rounds to the neighbour on the side AWAY
//     from the exact value of the same quantity (a float64 shadow computation with no
//     rounding at all, carried across steps for the checkpoints and ring records), so that no
//     error ever cancels an earlier one. Its unit roundoff is one ulp (2u) instead of half an
//     ulp; TF32 truncation has no freedom and stays as it is.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "contract/step_args.hpp"

namespace kda::reference {

struct EmulatedProfile {
  bool tf32_dots = false;         // Triton: the rebuild's dot operands truncated to TF32 where out is float32
  bool keys_through_out = false;  // Triton: stored keys rounded through out's dtype before k_cache's
  bool directed = false;          // every rounding point away from the exact value
};

// One case's emulated kernel: holds the float64 shadow of every checkpoint and ring element it
// has written (elements it has not written shadow themselves: a case's tensors are exact
// inputs). Refuses a call before writing anything, as the reference steps do.
class ProfileEmulation {
 public:
  explicit ProfileEmulation(EmulatedProfile p) : p_(p) {}
  // The ReplaySSM step: validates the call (validate(), then the runtime values).
  Dims replayssm_step(const StepArgs& args);
  // The plain packed decode (spec/packed-decode.md) on arguments without rings that its
  // operator's contract accepted with `dims` (the caller validates: the contract is the
  // operator's, operators/kda_packed_decode/); checks the runtime values, then steps.
  Dims packed_decode_step(const StepArgs& args, const Dims& dims);

 private:
  struct Shadow {
    std::unordered_map<int64_t, double> values;  // element offset -> exact value
  };
  EmulatedProfile p_;
  Shadow state_, d_ring_, k_ring_, g_ring_;
  friend struct EmulationStep;
};

}  // namespace kda::reference
