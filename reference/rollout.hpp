// The rollout driver: plays the caller's protocol over config.steps tokens (fill_token, one
// step, compare, advance_cursors: write_pos -> 0 after a flush, else +1; forced flushes
// from the config's pattern) and compares with the plain float64 recurrence at every token
// (every output head; a padding row's must be exactly zero) and at every flush (the new
// checkpoint of the row's slot), with compare.hpp's floors. With random cursors the
// recurrence starts from the REBUILT state (checkpoint + ring records up to each cursor), so
// the key property holds from token 0.
#pragma once
#include <functional>
#include <string>

#include "cases/case_config.hpp"
#include "contract/step_args.hpp"
#include "reference/compare.hpp"
#include "reference/tolerance.hpp"

namespace kda::reference {

enum class RolloutModel {
  Kernel,      // replayssm_step(Rounding::Kernel) on the case's tensors
  Off,         // replayssm_step(Rounding::Off) on the case's tensors
  PureDouble   // ReplayModel<double>: float64 arithmetic and float64 rings
};

struct RolloutReport {
  CaseConfig config;
  int64_t tokens = 0;    // steps played
  int64_t flushes = 0;   // non-padding rows that flushed, summed over steps
  Comparison outputs;    // worst over every token and non-padding (row, hv)
  Comparison states;     // worst over every flush's (slot, hv)
  double max_gate_mass = 0;     // the largest gate mass G the budget saw (tolerance.cpp)
  double max_cancellation = 1;  // the largest (sum of the parts' norms) / ||state|| it saw
  bool pass() const { return outputs.pass && states.pass; }
  // One line: the config, then both comparisons.
  std::string summary() const;
};

// A step on the case's host tensors (in place), e.g. replayssm_step or a GPU kernel that
// copies the tensors to the device and back.
using StepFunction = std::function<void(const StepArgs&)>;

// Runs a rollout of the reference with the model's bounds: rollout_bounds() for Kernel and
// Off, kPureDoubleBound for PureDouble (outputs judged against the same floors).
RolloutReport run_rollout(const CaseConfig& config, RolloutModel model);
// Runs any step function with the given bounds (tolerance.hpp): with bounds.rates set (as
// rollout_bounds() sets them) every comparison uses the running ErrorBudget's bound, else
// the fixed bounds.output / bounds.state. `beta_through_b` false: the truth keeps beta in
// float32 (the plain packed decode's function) instead of rounding it through b's dtype.
RolloutReport run_rollout(const CaseConfig& config, const StepFunction& step, const RolloutBounds& bounds,
                          bool beta_through_b = true);
// The same with fixed bounds (no gate-mass term).
RolloutReport run_rollout(const CaseConfig& config, const StepFunction& step, double output_bound,
                          double state_bound);

}  // namespace kda::reference
