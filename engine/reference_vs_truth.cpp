// The operator's CPU reference judged against the truth: the driver (run_case.hpp) with a
// reference backend and the truth oracle, or the float64 model alone.
#include "engine/reference_backend.hpp"
#include "engine/run_case.hpp"
#include "engine/truth_oracle.hpp"

namespace kda::engine {

CaseReport reference_vs_truth(const CaseConfig& config, ReferenceModel model, const OperatorDescription& op) {
  if (model == ReferenceModel::PureDouble) return run_model_vs_truth(op.fit_case(config), op);
  const auto reference = make_reference_backend(
      model == ReferenceModel::Kernel ? reference::Rounding::Kernel : reference::Rounding::Off, op);
  return run_vs_truth(config, *reference);
}

}  // namespace kda::engine
