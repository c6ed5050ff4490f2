// kda_triton_replayssm's call as kda_replayssm's function reads it (OperatorDescription::
// as_kda_call), for the float64 truth: the rings in logical order with raw gates and raw keys.
#pragma once
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"

namespace kda::kda_triton {

// The call itself where its rings are already kda_replayssm's (linear, raw gates, raw keys);
// otherwise copies in `storage`, of each live row's slot: a circular window rotated so that
// record j lies at j (cache_base null in the view; circular_replay stays set, so a reader
// still knows a natural flush for a history checkpoint), prefix gates back to each record's
// own gate (prefix_j - prefix_{j-1} within the window), pre-decayed keys back to k_j =
// k_ring_j exp(prefix_j), and, with pre-decayed keys, b in float32 (that path's beta is
// sigmoid(b) unrounded). Converted rings are float32. Records past a row's cursor are copied
// unconverted (no reader looks at them); rows with an invalid slot or base are left as they
// are (the contract refuses them).
StepArgs kda_view(const StepArgs& args, const Dims& d, std::vector<HostTensor>& storage);

}  // namespace kda::kda_triton
