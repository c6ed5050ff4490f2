#include "operators/replayssm_family/truth_oracle.hpp"

#include <optional>

#include "engine/reports/phase_times.hpp"
#include "reference/truth_tracker.hpp"

namespace kda::engine {
namespace {

// The slot each row works on this step; -1 for padding and rejected rows.
std::vector<int64_t> working_slots(const std::vector<RowPlan>& plans) {
  std::vector<int64_t> slots(plans.size(), -1);
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].accepted()) slots[row] = plans[row].slot;
  return slots;
}

// The call as the KDA recurrence reads it.
StepArgs kda_view(KdaCallView as_kda, const StepArgs& args, const Dims& d, std::vector<HostTensor>& storage) {
  return as_kda ? as_kda(args, d, storage) : args;
}

class TruthOracle final : public Oracle {
 public:
  TruthOracle(const reference::RolloutBounds& bounds, bool beta_through_b, KdaCallView as_kda, const OwnResults* own)
      : bounds_(bounds), beta_through_b_(beta_through_b), as_kda_(as_kda), own_(own) {}

  void before_step(const StepView& v) override {
    if (!truth_)  // the state before the first token
      truth_.emplace(kda_view(as_kda_, v.tensors.args(), v.dims, storage_), v.dims, bounds_, v.tensors.out.type(),
                     v.tensors.initial_state.type(), beta_through_b_);
  }
  // The recurrence advances only by the steps the backend computed (a step it refused, as it
  // must, did nothing); it reads the token's inputs, which no step may write (the driver's
  // footprint check).
  void judge_step(const StepView& v, CaseReport& r) override {
    timed(Phase::Reference,
          [&] { truth_->advance(kda_view(as_kda_, v.tensors.args(), v.dims, storage_), working_slots(v.plans)); });
    const DLTensor& state = v.tensors.initial_state.dl();
    const auto checkpoint = [&](int64_t slot, int64_t hv) {
      return own_ ? own_->checkpoint(slot, hv) : reference::read_checkpoint(state, v.dims, slot, hv);
    };
    if (own_) truth_->judge(v.token, own_->out(), checkpoint, r.out, r.state);
    else {
      reference::read_out(v.tensors.out.dl(), v.dims, out_);
      truth_->judge(v.token, out_, checkpoint, r.out, r.state);
    }
    // After every token: a failing one ends the rollout before finish().
    r.max_gate_mass = truth_->max_gate_mass();
    r.max_cancellation = truth_->max_cancellation();
  }
  void finish(const StepView&, CaseReport&) override {}

 private:
  reference::RolloutBounds bounds_;
  bool beta_through_b_;
  KdaCallView as_kda_;
  const OwnResults* own_;
  std::vector<HostTensor> storage_;  // of the re-laid tensors of the KDA view
  std::optional<reference::TruthTracker> truth_;
  reference::Matrix<double> out_;  // the step's out as read for the judgement, kept from step to step
};

}  // namespace

std::unique_ptr<Oracle> truth_oracle(const reference::RolloutBounds& bounds, bool beta_through_b, KdaCallView as_kda,
                                     const OwnResults* own) {
  return std::make_unique<TruthOracle>(bounds, beta_through_b, as_kda, own);
}

}  // namespace kda::engine
