// What one `kda-harness case` run of a config costs, estimated before anything is allocated:
// the bytes of the case's host tensors plus the float64 working copies of the reference
// rollout, and the reference work (cases/case_config.hpp's rollout_work). `case` refuses a
// config over either budget with the estimate and the flag that raises it.
#pragma once
#include <string>

#include "cases/case_config.hpp"

namespace kda::cli {

// Default budgets: 4 GiB fits a laptop; 1e10 units of work are a few minutes of reference.
inline constexpr double kDefaultMemoryBudgetMiB = 4096;
inline constexpr double kDefaultCaseWorkBudget = 1e10;
// The largest values the options take: beyond them a budget no longer limits anything (a
// PiB of memory, 1e18 units of work: centuries), and a scale of 1e4 is 400 million cases.
inline constexpr double kMaxMemoryBudgetMiB = 1 << 30;
inline constexpr double kMaxWorkBudget = 1e18;
inline constexpr double kMaxScale = 1e4;

// The first field of a config that makes it no valid call, as "HV=4 is not a multiple of
// H=3"; empty for a valid config (cases/case_config.hpp's is_valid_config).
std::string invalid_config_field(const CaseConfig& c);

// Bytes of the host tensors materialize() allocates for the config (envelope gaps included).
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
// The reference work of a `case` run: rollout_work plus kStepWork a step.
double case_work(const CaseConfig& c);

// Empty when the config fits both budgets, else the message that says why and how to run it.
std::string over_budget(const CaseConfig& c, double memory_budget_mib, double work_budget);

}  // namespace kda::cli
