// The float64 plain recurrence as an oracle (reference/truth_tracker.hpp): every output head
// of every token and every flushed checkpoint of the backend's steps, within `bounds`
// (engine::bounds_vs_truth for a backend's profile: the running error budget of its rounding
// points). A row the plan rejects does nothing and must output zeros.
#pragma once
#include <memory>

#include "engine/description/operator.hpp"
#include "engine/oracles/oracle.hpp"
#include "reference/matrix.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {

// What a backend computed, where it keeps it in float64 of its own instead of in the call's
// tensors (the float64 model: its rings and checkpoints are no tensors).
class OwnResults {
 public:
  virtual ~OwnResults() = default;
  // The last step's out [B, HV*V] and the checkpoint [V, K] of (slot, hv).
  virtual const reference::Matrix<double>& out() const = 0;
  virtual reference::Matrix<double> checkpoint(int64_t slot, int64_t hv) const = 0;
};

// `as_kda`: the operator's view of its calls as the default operator's (OperatorDescription::as_kda_call).
// `own`: where the backend's results are read instead of the tensors (out, the checkpoints).
std::unique_ptr<Oracle> truth_oracle(const reference::RolloutBounds& bounds, bool beta_through_b,
                                     KdaCallView as_kda = nullptr, const OwnResults* own = nullptr);

// The operator's CPU reference against the truth: its step with the kernel's rounding points
// ("reference") or in float64 arithmetic with rounded stores ("reference-double") through the
// driver, or the operator's own float64 model (CaseDriver::model_vs_truth; else its reference
// step in float64).
enum class ReferenceModel { Kernel, Off, PureDouble };
CaseReport reference_vs_truth(const OperatorCase& c, ReferenceModel model);
// ... of a drawn config, first made one of the operator's cases (fit()).
CaseReport reference_vs_truth(const CaseConfig& config, ReferenceModel model,
                              const OperatorDescription& op = default_operator());

}  // namespace kda::engine
