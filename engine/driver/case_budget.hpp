// What one run of a case line costs, estimated before anything is allocated: the bytes of the
// case's host tensors plus the float64 working copies of the reference rollout, and the
// reference work (cases/case_config.hpp's rollout_work). Every entry point that takes a case
// line (engine/driver/case_line.hpp) refuses a config over either budget with the estimate and
// the flag that raises it.
#pragma once
#include <string>

#include "cases/case_config.hpp"

namespace kda::engine {

// The budgets a case line is held to; the defaults fit a laptop (4 GiB) and a few minutes of
// reference (1e10 units of work). The command line's --memory-budget and --work-budget raise them.
struct CaseBudget {
  double memory_mib = 4096;
  double work = 1e10;
};

// Bytes of the host tensors of the config's ReplaySSM case (the family's materialize_replayssm_case,
// envelope gaps included): the budget's estimate for every operator's case of the config.
double case_tensor_bytes(const CaseConfig& c);
// Upper estimate of the run's peak memory: the tensors, a copy of them, and the float64
// state and rings the rollout keeps (model, plain recurrence, error budget).
double case_memory_bytes(const CaseConfig& c);

// What one step costs besides its arithmetic (rollout_work counts B * HV * V * K * (L / 2 + 2)),
// in the same units: filling the step's inputs, the backend's call, the footprint check and the
// oracle's bookkeeping: tens of microseconds a step, all a case of tiny sizes costs. Without
// it "K=1 V=1 ... steps=3999999999" counted as 1e10 (the default budget, minutes) and ran for
// hours; with it the default budget allows about 1e7 tiny steps.
inline constexpr double kStepWork = 1e3;
// The reference work of a case line's run: rollout_work plus kStepWork a step.
double case_work(const CaseConfig& c);

// Empty when the config fits both budgets, else the message that says why and how to run it.
std::string over_budget(const CaseConfig& c, const CaseBudget& budget);

}  // namespace kda::engine
