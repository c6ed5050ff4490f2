// The float64 plain recurrence as an oracle (reference/truth_tracker.hpp): every output head
// of every token and every flushed checkpoint of the backend's steps, within `bounds`
// (engine::bounds_vs_truth for a backend's profile: the running error budget of its rounding
// points). A row the plan rejects does nothing and must output zeros.
#pragma once
#include <memory>

#include "engine/operator.hpp"
#include "engine/oracle.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {

// `as_kda`: the operator's view of its calls as kda_replayssm's (OperatorDescription::as_kda_call).
std::unique_ptr<Oracle> truth_oracle(const reference::RolloutBounds& bounds, bool beta_through_b,
                                     KdaCallView as_kda = nullptr);

// The float64 ReplaySSM model (reference::ReplayModel<double>: float64 arithmetic and float64
// rings) rolled out over `config` against the same recurrence within kPureDoubleBound: the
// reference's own algebra (rebuild = plain state), not a backend, so it has no tensors to
// step and reports out and state only.
CaseReport run_model_vs_truth(const CaseConfig& config, const OperatorDescription& op = default_operator());

// The operator's CPU reference against the truth: its step with the kernel's rounding points
// ("reference") or in float64 arithmetic with rounded stores ("reference-double") through the
// driver, or the float64 model (run_model_vs_truth).
enum class ReferenceModel { Kernel, Off, PureDouble };
CaseReport reference_vs_truth(const CaseConfig& config, ReferenceModel model,
                              const OperatorDescription& op = default_operator());

}  // namespace kda::engine
