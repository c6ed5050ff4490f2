// Shared by the two halves of validate_gdn_replayssm(): the wrapper's checks (contract.cpp)
// and the harness extensions after G32 (contract_extensions.cpp).
#pragma once
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda::gdn_detail {

// G1-G32 in the wrapper's order (is_kda: its KDA path's K17-K19, G22 and P2-P9), with the
// framework errors it meets on the way (a d_cache under 3 dims at G16, K = 0 at G12, nk = 0 at
// G31) raised as extension errors in place.
Dims check_wrapper(const StepArgs& args, bool is_kda);
// The extensions, checked only after G32.
void check_extensions(const StepArgs& args, const Dims& dims, Backend backend, bool is_kda);

}  // namespace kda::gdn_detail
