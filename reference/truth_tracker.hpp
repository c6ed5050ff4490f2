// The float64 plain recurrence run beside a case, token by token, as the truth a step is
// judged against: every output head at every token (a padding row's must be exactly zero)
// and the checkpoint of every flushed (slot, hv), with compare.hpp's floors. With random
// cursors the recurrence starts from the REBUILT state (checkpoint + ring records up to each
// cursor), so the key property holds from token 0. With RolloutBounds::rates set the bounds
// are the running ErrorBudget's (tolerance.hpp), which follows the actual trajectory; else
// the fixed bounds.output / bounds.state.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contract/step_args.hpp"
#include "reference/compare.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/tolerance.hpp"

namespace kda::reference {

class TruthTracker {
 public:
  // From the case's tensors before its first token. `beta_through_b` false: beta stays in
  // float32 (the plain packed decode's function) instead of being rounded through b's dtype.
  // The rings are read in logical order (records [0, write_pos)): a circular ring's caller
  // passes them rotated, with circular_replay still set, so that a natural flush is judged as
  // a history checkpoint (circular-replay.md: the checkpoint holds the state BEFORE the token).
  TruthTracker(const StepArgs& args, const Dims& dims, const RolloutBounds& bounds, ScalarType out_dtype,
               ScalarType state_dtype, bool beta_through_b = true);

  // Before a token's step, from its inputs: advances the recurrence. `slots[row]` is the
  // slot the row works on this token (negative: the row does nothing and must output zeros).
  void advance(const StepArgs& args, const std::vector<int64_t>& slots);
  // The step's results against the recurrence: out [B, HV*V] and, for each flushed (slot,
  // hv), the checkpoint the step stored. Folds into `outputs` and `states`.
  void judge(int64_t token, const Matrix<double>& out,
             const std::function<Matrix<double>(int64_t slot, int64_t hv)>& checkpoint, Comparison& outputs,
             Comparison& states);

  int64_t flushes() const { return flushes_; }  // non-padding rows that flushed, over the tokens
  double max_gate_mass() const { return budget_ ? budget_->max_gate_mass() : 0.0; }
  double max_cancellation() const { return budget_ ? budget_->max_cancellation() : 1.0; }

 private:
  Dims d_;
  RolloutBounds bounds_;
  ScalarType out_dtype_, state_dtype_;
  LayerParams<double> params_;
  PlainState<double> plain_;
  std::optional<ErrorBudget> budget_;
  // The token being judged: its inputs, rows, heads, what the error budget reads of the float64
  // states before it (ErrorBudget::decayed_key_product) and its outputs. heads_, before_ and
  // outputs_ keep their vectors for later tokens: as many heads as the most one token had.
  TokenInputs<double> inputs_;
  std::vector<int64_t> slots_;
  std::vector<bool> flush_;
  std::vector<bool> history_;  // a circular ring's history checkpoint: the state before the token is stored
  std::vector<Matrix<double>> history_state_;  // per head of such a row: that state
  std::vector<HeadToken<double>> heads_;
  std::vector<Vector<double>> before_;
  std::vector<Vector<double>> outputs_;  // each head's o = S q_scaled
  Matrix<double> truth_out_;
  int64_t flushes_ = 0;
};

// Reads out [B, 1, HV, V] as [B, HV*V], and the checkpoint [V, K] of (slot, hv).
Matrix<double> read_out(const DLTensor& out, const Dims& d);
void read_out(const DLTensor& out, const Dims& d, Matrix<double>& into);  // into's storage reused
Matrix<double> read_checkpoint(const DLTensor& state, const Dims& d, int64_t slot, int64_t hv);

}  // namespace kda::reference
