#include "operators/replayssm_family/case_driver.hpp"

#include <memory>

#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/footprint.hpp"
#include "operators/replayssm_family/reference_oracle.hpp"
#include "operators/replayssm_family/row_plan.hpp"
#include "operators/replayssm_family/token_prefetch.hpp"

namespace kda::engine {
namespace {

// Each token's inputs made while the token before it is played, where a core is spare.
StepLoader prefetching_loader(CaseTensors& t, int64_t steps) {
  auto prefetch = std::make_shared<TokenPrefetch>(t);
  if (steps > 1) prefetch->start(1);
  return [&t, prefetch, steps](int64_t token) {
    prefetch->take(t, token);
    if (token + 1 < steps) prefetch->start(token + 1);
  };
}

Dims ring_dims(const StepTensors& t, Dims d) {
  d.L = t.d_cache.shape()[2];
  return d;
}

// The caller's protocol after a step (contract/ring_protocol.hpp): an accepted row's
// write_pos (and circular cache_base) advanced by the step it took; padding and rejected rows
// keep theirs. The plans then hold the cursors as they are (the end of rollout check).
void after_step(StepTensors& t, std::vector<RowPlan>& plans, bool advance) {
  if (advance)
    for (std::size_t row = 0; row < plans.size(); ++row)
      if (plans[row].accepted()) set_ring_cursor(t, static_cast<int64_t>(row), plans[row].ring.after(plans[row].step()));
  for (std::size_t row = 0; row < plans.size(); ++row) {
    plans[row].cursor = static_cast<int64_t>(t.write_pos.get_linear(static_cast<int64_t>(row)));
    plans[row].ring.write_pos = plans[row].cursor;
    if (t.cache_base) plans[row].ring.base = static_cast<int64_t>(t.cache_base->get_linear(static_cast<int64_t>(row)));
  }
}

std::unique_ptr<Oracle> truth(const CaseTensors& t, const OperatorDescription& op, Profile profile, bool directed) {
  const ReplaySSMDriver& driver = replayssm_driver_of(op);
  return truth_oracle(bounds_vs_truth(t.config, profile, directed), driver.beta_through_b, driver.as_kda_call);
}

}  // namespace

ReplaySSMDriver replayssm_case_driver(KdaCallView as_kda_call, bool beta_through_b) {
  ReplaySSMDriver driver;
  static_cast<CaseDriver&>(driver) = CaseDriver{
      .materialize = &materialize_replayssm_case,
      .fill_step = &fill_token,
      .loader = &prefetching_loader,
      .dims = &ring_dims,
      .plan_rows = &plan_rows,
      .footprint_violation = &footprint_violation,
      .after_step = &after_step,
      .reference_oracle = &reference_oracle,
      .truth_oracle = &truth,
      .model_vs_truth = &run_model_vs_truth,
      .golden_rings = true,
  };
  driver.as_kda_call = as_kda_call;
  driver.beta_through_b = beta_through_b;
  return driver;
}

}  // namespace kda::engine
