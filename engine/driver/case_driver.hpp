// How the one driver (engine/driver/run_case.hpp) plays an operator's cases: the operator
// makes its own tensors and steps' inputs, names the dims its call's checks leave out, plans
// its rows, names what a step may write, keeps the caller's protocol between steps and judges
// with its own oracles. Every description points at one (OperatorDescription::case_driver):
// its family's or its own.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cases/case_tensors.hpp"
#include "engine/oracles/oracle.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/profile.hpp"
#include "engine/description/row_plan.hpp"
#include "engine/reports/case_report.hpp"

namespace kda::engine {

// Loads step `step`'s inputs (step > 0, in order) into the tensors it was made for.
using StepLoader = std::function<void(int64_t step)>;

struct CaseDriver {
  // The case's tensors before its first step (the config already the operator's, fit_case).
  CaseTensors (*materialize)(const CaseConfig& config);
  // Step `step`'s inputs (step > 0), written over the last step's.
  void (*fill_step)(CaseTensors& tensors, int64_t step);
  // For a case of `steps` steps about to be played: its loader, which may make a step's
  // inputs while the step before it plays. Null: fill_step, step by step.
  StepLoader (*loader)(CaseTensors& tensors, int64_t steps) = nullptr;
  // The step's dims: validate()'s, with what the call's checks do not name from the tensors.
  Dims (*dims)(const StepTensors& tensors, Dims validated);
  // What each row must do this step, from the host-resident index tensors alone.
  std::vector<RowPlan> (*plan_rows)(const StepArgs& host, const Dims& dims);
  // "" when every byte that changed since `before` lies where the plans' accepted rows may
  // write; else the first that does not, described.
  std::string (*footprint_violation)(const WrittenBytes& before, const StepArgs& after, const Dims& dims,
                                     const std::vector<RowPlan>& plans);
  // After a judged step: the caller's protocol when `advance` (what the next step's indices
  // are), and the plans made to see the tensors as they now are (the end of rollout check).
  void (*after_step)(StepTensors& tensors, std::vector<RowPlan>& plans, bool advance);
  // The CPU reference stepped in lockstep, within `profile`'s bounds.
  std::unique_ptr<Oracle> (*reference_oracle)(const CaseTensors& materialized, const OperatorDescription& op,
                                              Profile profile, bool directed);
  // The float64 recurrence over the whole rollout.
  std::unique_ptr<Oracle> (*truth_oracle)(const CaseTensors& materialized, const OperatorDescription& op,
                                          Profile profile, bool directed);
  // A float64 model of the operator's own, rolled out against the truth (`--reference
  // pure-double`). Null: the reference step in float64 arithmetic has that role.
  CaseReport (*model_vs_truth)(const CaseConfig& config, const OperatorDescription& op) = nullptr;
  // Golden files hold the case's checkpoints and ring records, and its rows' patterns (the
  // ReplaySSM family's); else each step's out and the written tensors at the end.
  bool golden_rings = false;
};

// The operator's driver (std::logic_error for a description without one).
const CaseDriver& driver_of(const OperatorDescription& op);
// Its materialization of a config (fit_case applied by the caller).
CaseTensors materialize_case(const OperatorDescription& op, const CaseConfig& config);

}  // namespace kda::engine
