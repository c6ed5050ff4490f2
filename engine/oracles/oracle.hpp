// What the one driver (engine/driver/run_case.hpp) judges a backend's steps against. The driver
// plays the case, steps the backend and checks what any step must show (refusals, row
// status, footprint, guards); the oracle knows what the step should have computed:
//   - the CPU reference stepped in lockstep (each case driver's reference_oracle),
//   - the float64 recurrence (each case driver's truth_oracle, kept in its family's folder),
//   - a golden file's expected tensors (golden/golden_verify.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "contract/step_tensors.hpp"
#include "engine/reports/case_report.hpp"
#include "engine/description/row_plan.hpp"

namespace kda::engine {

// One step as the driver sees it: the backend's tensors on the host (a ReplaySSM call; the
// backend got its operator's part of it), its row plans and what the tensors held before.
struct StepView {
  int64_t token = 0;
  std::string where;  // "token 3"
  StepTensors& tensors;
  const Dims& dims;
  const std::vector<RowPlan>& plans;
  const WrittenBytes& before;
  // before_step is called while the backend's step is in flight (Backend::start_step): work
  // for judge_step that reads only the step's inputs and the tensors as they were may be
  // done now, beside the backend.
  bool step_in_flight = false;
};

class Oracle {
 public:
  virtual ~Oracle() = default;
  // Before the backend's step: the step's inputs are in view.tensors. A step the backend then
  // refuses as it must (a rejected row, no row status) is not judged: what an oracle keeps
  // across steps advances in judge_step.
  virtual void before_step(const StepView& view) = 0;
  // After a step the backend computed: folds the comparisons into the report.
  virtual void judge_step(const StepView& view, CaseReport& report) = 0;
  // After the last step (view: the last step's plans, with the cursors advanced).
  virtual void finish(const StepView& view, CaseReport& report) = 0;
};

}  // namespace kda::engine
