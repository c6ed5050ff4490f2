#include "engine/truth_oracle.hpp"

#include <algorithm>
#include <optional>

#include "cases/case_tensors.hpp"
#include "engine/phase_times.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tensor_io.hpp"
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
  TruthOracle(const reference::RolloutBounds& bounds, bool beta_through_b, KdaCallView as_kda)
      : bounds_(bounds), beta_through_b_(beta_through_b), as_kda_(as_kda) {}

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
    truth_->judge(
        v.token, reference::read_out(v.tensors.out.dl(), v.dims),
        [&](int64_t slot, int64_t hv) { return reference::read_checkpoint(state, v.dims, slot, hv); }, r.out, r.state);
  }
  void finish(const StepView&, CaseReport& r) override {
    if (!truth_) return;
    r.max_gate_mass = truth_->max_gate_mass();
    r.max_cancellation = truth_->max_cancellation();
  }

 private:
  reference::RolloutBounds bounds_;
  bool beta_through_b_;
  KdaCallView as_kda_;
  std::vector<HostTensor> storage_;  // of the re-laid tensors of the KDA view
  std::optional<reference::TruthTracker> truth_;
};

}  // namespace

std::unique_ptr<Oracle> truth_oracle(const reference::RolloutBounds& bounds, bool beta_through_b, KdaCallView as_kda) {
  return std::make_unique<TruthOracle>(bounds, beta_through_b, as_kda);
}

CaseReport run_model_vs_truth(const CaseConfig& config, const OperatorDescription& op) {
  CaseReport r;
  r.config = config;
  r.backend = r.backend_spec = "pure-double";  // `kda-harness case ... --backend pure-double`
  r.against = "truth";
  CaseTensors t = materialize(config);
  const Dims d{config.B, config.H, config.HV, config.K, config.V, config.L, config.slots};
  std::vector<HostTensor> storage;
  StepArgs args = kda_view(op.as_kda_call, t.args(), d, storage);
  const auto params = reference::load_params<double>(args, d);
  auto model = reference::ReplayModel<double>::from_tensors(args, d);
  reference::RolloutBounds fixed;  // no rates: fixed bounds, no budget
  fixed.output = fixed.state = reference::kPureDoubleBound;
  reference::TruthTracker truth(args, d, fixed, config.out_dtype, config.state_dtype);
  int64_t live_rows = 0;  // non-padding rows, summed over the tokens
  for (int64_t token = 0; token < config.steps; ++token) {
    if (token > 0) fill_token(t, token);
    args = kda_view(op.as_kda_call, t.args(), d, storage);
    const auto inputs = reference::load_token<double>(args, d);
    const auto write_pos = reference::io::read_indices(*args.write_pos);
    const auto force =
        args.force_flush ? reference::io::read_indices(*args.force_flush) : std::vector<int64_t>(d.B, 0);
    truth.advance(args, inputs.slot);
    live_rows += std::count_if(inputs.slot.begin(), inputs.slot.end(), [](int64_t s) { return s >= 0; });
    const reference::Matrix<double> out = model.step(params, inputs, write_pos, force);
    truth.judge(
        token, out, [&](int64_t slot, int64_t hv) { return model.checkpoint(slot, hv); }, r.out, r.state);
    advance_cursors(t);
    ++r.tokens;
  }
  r.flushes = truth.flushes();
  r.appends = live_rows - r.flushes;
  return r;
}

}  // namespace kda::engine
