#include "operators/replayssm_family/case_driver.hpp"

#include <vector>

#include "engine/driver/run_case.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tensor_io.hpp"

namespace kda::engine {
namespace {

// The float64 ReplaySSM model as a backend: each step advances the model on the case's
// ReplaySSM call (the whole call the case's tensors hold, as the default operator's view of it: the
// model is ReplaySSM's algebra, which an operator without rings has at L = 1) and keeps its
// outputs and checkpoints in float64 as OwnResults; it writes no tensor.
class ModelBackend final : public Backend, public OwnResults {
 public:
  ModelBackend(const OperatorDescription& op, StepTensors& tensors, const Dims& dims)
      : op_(op), as_kda_(replayssm_driver_of(op).as_kda_call), tensors_(tensors), dims_(dims) {
    envelope_.ring_modes = KDA_RING_ALL;
    const StepArgs args = kda_args();
    params_ = reference::load_params<double>(args, dims_);
    model_ = reference::ReplayModel<double>::from_tensors(args, dims_);
  }
  std::string name() const override { return "pure-double"; }  // `kda-harness case ... --backend pure-double`
  const Envelope& envelope() const override { return envelope_; }
  const OperatorDescription& op() const override { return op_; }
  void step(const StepArgs&) override {
    const StepArgs args = kda_args();
    const auto force = args.force_flush ? reference::io::read_indices(*args.force_flush) : std::vector<int64_t>(dims_.B, 0);
    out_ = model_.step(params_, reference::load_token<double>(args, dims_), reference::io::read_indices(*args.write_pos),
                       force, args.circular_replay);
  }
  const reference::Matrix<double>& out() const override { return out_; }
  reference::Matrix<double> checkpoint(int64_t slot, int64_t hv) const override { return model_.checkpoint(slot, hv); }

 private:
  StepArgs kda_args() { return as_kda_ ? as_kda_(tensors_.args(), dims_, storage_) : tensors_.args(); }

  const OperatorDescription& op_;
  KdaCallView as_kda_;
  StepTensors& tensors_;
  Dims dims_;
  std::vector<HostTensor> storage_;  // of the re-laid tensors of the KDA view
  reference::LayerParams<double> params_;
  reference::ReplayModel<double> model_;
  reference::Matrix<double> out_;
  Envelope envelope_;  // the contract's, on the CPU
};

}  // namespace

CaseReport run_model_vs_truth(const CaseConfig& config, const OperatorDescription& op) {
  CaseTensors t = materialize_replayssm_case(config);
  ModelBackend model(op, t, Dims{config.B, config.H, config.HV, config.K, config.V, config.L, config.slots});
  CaseReport r = start_report(config, model, "truth");
  reference::RolloutBounds fixed;  // no rates: fixed bounds, no budget
  fixed.output = fixed.state = reference::kPureDoubleBound;
  // The model rounds beta through b's dtype (ReplaySSM's function) whatever the operator.
  const std::unique_ptr<Oracle> oracle = truth_oracle(fixed, true, replayssm_driver_of(op).as_kda_call, &model);
  run_case({t, config.steps, [&t](int64_t token) { fill_token(t, token); }, true, nullptr}, model, *oracle, r);
  return r;
}

}  // namespace kda::engine
