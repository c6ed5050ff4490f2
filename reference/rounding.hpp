// Where a reference step rounds: every operator's reference step (operators/*/reference_step.hpp)
// and the engine's reference backends take one of these.
#pragma once

namespace kda::reference {

enum class Rounding {
  // Models the kernel's rounding points (semantics.md, "Rounding points"): float32
  // arithmetic; beta through b's dtype; in the rebuild d_j and the decayed keys
  // k_j * exp(total - prefix_j) rounded to out's dtype before their product, products
  // accumulated in float32; every store rounded (RNE) to its destination's dtype; g stored
  // float32. (TF32 products of a float32-out kernel are not modelled: see tolerance.hpp.)
  Kernel,
  // No intermediate rounding: all arithmetic in double. Stores still land in each tensor's
  // dtype (the tensors are what they are); beta still goes through b's dtype because
  // semantics.md makes that part of the function. For a rounding-free rollout use
  // ReplayModel<double> (replayssm_model.hpp), which keeps its rings in double.
  Off
};

}  // namespace kda::reference
