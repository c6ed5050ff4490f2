// The operator's CPU reference judged against the truth: the driver (run_case.hpp) with the
// truth oracle and a reference backend, or the operator's own float64 model.
#include "engine/driver/reference_vs_truth.hpp"

#include "engine/backends/reference_backend.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/run_case.hpp"

namespace kda::engine {

CaseReport reference_vs_truth(const OperatorCase& c, ReferenceModel model) {
  const OperatorDescription& op = *c.op;
  // An operator's own float64 model where its driver has one; else its float64 reference step.
  const CaseDriver& driver = driver_of(op);
  if (model == ReferenceModel::PureDouble && driver.model_vs_truth) return driver.model_vs_truth(c.config, op);
  if (model == ReferenceModel::PureDouble) model = ReferenceModel::Off;
  const auto reference = make_reference_backend(
      model == ReferenceModel::Kernel ? reference::Rounding::Kernel : reference::Rounding::Off, op);
  return run_vs_truth(c, *reference);
}

CaseReport reference_vs_truth(const CaseConfig& config, ReferenceModel model, const OperatorDescription& op) {
  return reference_vs_truth(fit(op, config), model);
}

}  // namespace kda::engine
