// How the one driver (engine/driver/run_case.hpp) plays an operator whose call is not the ReplaySSM
// family's (one token per step, mixed_qkv, rows planned from the rings' cursors, the state
// written by flushes): the operator makes its own tensors, plans its rows, names what a step
// may write, keeps the caller's protocol between steps and judges with its own oracles. An
// operator whose description carries none (OperatorDescription::case_driver null) is played as
// the ReplaySSM family; the functions below choose.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cases/case_tensors.hpp"
#include "engine/oracles/oracle.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/profile.hpp"
#include "engine/description/row_plan.hpp"

namespace kda::engine {

struct CaseDriver {
  // The case's tensors before its first step (the config already the operator's, fit_case).
  CaseTensors (*materialize)(const CaseConfig& config);
  // Step `step`'s inputs (step > 0), written over the last step's.
  void (*fill_step)(CaseTensors& tensors, int64_t step);
  // What each row must do this step, from the host-resident index tensors alone.
  std::vector<RowPlan> (*plan_rows)(const StepArgs& host, const Dims& dims);
  // "" when every byte that changed since `before` lies where the plans' accepted rows may
  // write; else the first that does not, described.
  std::string (*footprint_violation)(const WrittenBytes& before, const StepArgs& after, const Dims& dims,
                                     const std::vector<RowPlan>& plans);
  // The caller's protocol after a judged step (what the next step's indices are).
  void (*after_step)(StepTensors& tensors, const std::vector<RowPlan>& plans);
  // The CPU reference stepped in lockstep, within `profile`'s bounds.
  std::unique_ptr<Oracle> (*reference_oracle)(const CaseTensors& materialized, const OperatorDescription& op,
                                              Profile profile, bool directed);
  // The float64 recurrence over the whole rollout.
  std::unique_ptr<Oracle> (*truth_oracle)(const CaseTensors& materialized, Profile profile, bool directed);
};

// The operator's materialization of a config (fit_case applied by the caller), its step's
// inputs, its rows and its footprint: the driver's when it has one, else the ReplaySSM family's.
CaseTensors materialize_case(const OperatorDescription& op, const CaseConfig& config);
void fill_case_step(const OperatorDescription& op, CaseTensors& tensors, int64_t step);
std::vector<RowPlan> plan_case_rows(const OperatorDescription& op, const StepArgs& host, const Dims& dims);
std::string case_footprint_violation(const OperatorDescription& op, const WrittenBytes& before, const StepArgs& after,
                                     const Dims& dims, const std::vector<RowPlan>& plans);

}  // namespace kda::engine
