// The operator's CPU reference judged against the float64 truth (its driver's truth oracle),
// or its own float64 model where its driver has one.
#pragma once
#include "cases/case_config.hpp"
#include "engine/description/operator.hpp"
#include "engine/reports/case_report.hpp"

namespace kda::engine {

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
