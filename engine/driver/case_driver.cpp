#include "engine/driver/case_driver.hpp"

namespace kda::engine {

CaseTensors materialize_case(const OperatorDescription& op, const CaseConfig& config) {
  return op.case_driver ? op.case_driver->materialize(config) : materialize(config);
}

void fill_case_step(const OperatorDescription& op, CaseTensors& tensors, int64_t step) {
  if (op.case_driver) op.case_driver->fill_step(tensors, step);
  else fill_token(tensors, step);
}

std::vector<RowPlan> plan_case_rows(const OperatorDescription& op, const StepArgs& host, const Dims& dims) {
  return op.case_driver ? op.case_driver->plan_rows(host, dims) : plan_rows(host, dims);
}

std::string case_footprint_violation(const OperatorDescription& op, const WrittenBytes& before, const StepArgs& after,
                                     const Dims& dims, const std::vector<RowPlan>& plans) {
  return op.case_driver ? op.case_driver->footprint_violation(before, after, dims, plans)
                        : footprint_violation(before, after, dims, plans);
}

}  // namespace kda::engine
