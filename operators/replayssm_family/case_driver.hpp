// How the engine's driver (engine/driver/run_case.hpp) plays the ReplaySSM family's cases (the
// KDA and GDN ReplaySSM operators, and the plain packed decode as the call at L = 1): the case
// tensors of cases/case_tensors.hpp, each token's inputs made ahead on a spare core
// (token_prefetch.hpp), the ring length from d_cache, rows planned from the rings' cursors
// (engine/description/row_plan.hpp), the caller's cursor protocol between steps, the CPU
// reference in lockstep and the float64 recurrence as oracles, and the float64 ReplaySSM model.
#pragma once
#include "engine/driver/case_driver.hpp"

namespace kda::engine {

const CaseDriver& replayssm_case_driver();

// The float64 ReplaySSM model (reference::ReplayModel<double>: float64 arithmetic and float64
// rings) rolled out over `config` through the driver against the same recurrence within
// kPureDoubleBound: the reference's own algebra (rebuild = plain state). It writes no tensor:
// the truth oracle reads its out and checkpoints as OwnResults.
CaseReport run_model_vs_truth(const CaseConfig& config, const OperatorDescription& op);

}  // namespace kda::engine
