// How the engine's driver (engine/driver/run_case.hpp) plays the ReplaySSM family's cases (the
// KDA and GDN ReplaySSM operators, and the plain packed decode as the call at L = 1): the case
// tensors of case_tensors.hpp, each token's inputs made ahead on a spare core
// (token_prefetch.hpp), the ring length from d_cache, rows planned from the rings' cursors
// (engine/description/row_plan.hpp), the caller's cursor protocol between steps, the CPU
// reference in lockstep and the float64 recurrence as oracles, and the float64 ReplaySSM model.
#pragma once
#include "operators/replayssm_family/replayssm_driver.hpp"

namespace kda::engine {

// The family's driver for an operator (its description's case_driver points at one it keeps).
ReplaySSMDriver replayssm_case_driver(KdaCallView as_kda_call = nullptr, bool beta_through_b = true);

// The float64 ReplaySSM model (reference::ReplayModel<double>: float64 arithmetic and float64
// rings) rolled out over `config` through the driver against the same recurrence within
// kPureDoubleBound: the reference's own algebra (rebuild = plain state). It writes no tensor:
// the truth oracle reads its out and checkpoints as OwnResults.
CaseReport run_model_vs_truth(const CaseConfig& config, const OperatorDescription& op);

}  // namespace kda::engine
