// The ReplaySSM family's truth: the float64 plain recurrence as an oracle
// (reference/truth_tracker.hpp): every output head of every token and every flushed checkpoint
// of the backend's steps, within `bounds` (engine::bounds_vs_truth for a backend's profile: the
// running error budget of its rounding points). A row the plan rejects does nothing and must
// output zeros.
#pragma once
#include <memory>
#include <vector>

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

// A call viewed as the KDA ReplaySSM recurrence's (kda_replayssm's): tensors it must re-lay (an
// operator's scalar gates repeated over the key channels, a circular ring in logical order) are
// made in `storage`, the others shared.
using KdaCallView = StepArgs (*)(const StepArgs& args, const Dims& dims, std::vector<HostTensor>& storage);

// `beta_through_b`: the operator's function rounds beta through b's dtype (else keeps it in
// float32). `as_kda`: the operator's view of its calls as kda_replayssm's (null: they are).
// `own`: where the backend's results are read instead of the tensors (out, the checkpoints).
std::unique_ptr<Oracle> truth_oracle(const reference::RolloutBounds& bounds, bool beta_through_b,
                                     KdaCallView as_kda = nullptr, const OwnResults* own = nullptr);

}  // namespace kda::engine
