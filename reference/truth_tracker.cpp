#include "reference/truth_tracker.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "contract/ring_protocol.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

// A head's comparison, merged into `into`. Only where it becomes the worst block so far is it
// labelled: `where()` names it and, when it fails, its element of the greatest absolute
// difference (the first NaN if any), `index(i)` giving element i's index in its tensor.
template <class Where, class Index>
void compare_head(const double* expected, const double* actual, int64_t n, double bound, double floor,
                  const Where& where, const Index& index, Comparison& into) {
  Comparison c =
      compare_unlabeled({expected, static_cast<size_t>(n)}, {actual, static_cast<size_t>(n)}, n, bound, {&floor, 1});
  if (!into.takes(c)) {
    into.merge(c);
    return;
  }
  c.where = where();
  if (!c.pass) {
    int64_t worst = 0;
    double worst_diff = -1;
    for (int64_t i = 0; i < n; ++i) {
      const double diff = std::abs(actual[i] - expected[i]);
      if (std::isnan(diff)) {
        worst = i;
        break;
      }
      if (diff > worst_diff) worst = i, worst_diff = diff;
    }
    c.where += fmt::format("; there the greatest absolute difference: {:.3e} at index ({}) (expected {:.6g}, got {:.6g})",
                           std::abs(actual[worst] - expected[worst]), index(worst), expected[worst], actual[worst]);
  }
  into.merge(c);
}

}  // namespace

Matrix<double> read_out(const DLTensor& out, const Dims& d) {
  Matrix<double> m;
  read_out(out, d, m);
  return m;
}

void read_out(const DLTensor& out, const Dims& d, Matrix<double>& into) {
  io::gather(out, {0, d.B, d.HV * d.V, d.HV * d.V, 1}, into);
}

Matrix<double> read_checkpoint(const DLTensor& s, const Dims& d, int64_t slot, int64_t hv) {
  Matrix<double> m;
  io::gather(s, {slot * io::stride_of(s, 0) + hv * io::stride_of(s, 1), d.V, io::stride_of(s, 2), d.K, io::stride_of(s, 3)},
             m);
  return m;
}

TruthTracker::TruthTracker(const StepArgs& args, const Dims& d, const RolloutBounds& bounds, ScalarType out_dtype,
                           ScalarType state_dtype, bool beta_through_b)
    : d_(d), bounds_(bounds), out_dtype_(out_dtype), state_dtype_(state_dtype), params_(load_params<double>(args, d)),
      plain_(d) {
  if (!beta_through_b) params_.beta_dtype = ScalarType::Float32;
  // The truth and the error budget (when the bounds carry rounding rates) start from the
  // state the step rebuilds: the checkpoint and the records up to each row's cursor.
  if (bounds.rates) budget_.emplace(*bounds.rates, d);
  const auto slots = io::read_indices(*args.ssm_state_indices);
  const auto initial = ReplayModel<double>::from_tensors(args, d, slots);  // the rows' slots only
  const std::vector<int64_t> cursors =
      args.write_pos ? io::read_indices(*args.write_pos) : std::vector<int64_t>(d.B, 0);
  for (int64_t row = 0; row < d.B; ++row) {
    if (slots[row] < 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      plain_.at(slots[row], hv) = initial.rebuilt_state(slots[row], hv, cursors[row]);
      if (budget_)  // the records as the model read them (all L of them: start reads the first `cursor`)
        budget_->start(slots[row], hv, initial.checkpoint(slots[row], hv), initial.d_records(slots[row], hv),
                       initial.k_records(slots[row], hv), initial.g_records(slots[row], hv), cursors[row]);
    }
  }
}

void TruthTracker::advance(const StepArgs& args, const std::vector<int64_t>& slots) {
  load_token<double>(args, d_, inputs_);
  inputs_.slot = slots;
  const auto write_pos = args.write_pos ? io::read_indices(*args.write_pos) : std::vector<int64_t>(d_.B, 0);
  const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(d_.B, 0);
  slots_ = slots;
  flush_.assign(d_.B, false);
  history_.assign(d_.B, false);
  // heads_ and before_ keep their vectors and matrices from token to token: no allocation per head.
  std::size_t heads = 0;
  // plain_step's update, each head prepared once (the error budget reads the same heads).
  truth_out_.setZero(d_.B, d_.HV * d_.V);
  for (int64_t row = 0; row < d_.B; ++row) {
    if (slots[row] < 0) continue;
    // ReplaySSM flushes at the ring's last record or when forced (a circular ring's natural
    // flush is a history checkpoint); an operator without a ring (write_pos absent) at every token.
    const RingStep step = args.write_pos ? RingCursor{args.circular_replay, d_.L, write_pos[row], 0}.step(force[row] != 0)
                                         : RingStep::Full;
    flush_[row] = step == RingStep::Full;
    history_[row] = step == RingStep::History;
    flushes_ += flush_[row] || history_[row];
    for (int64_t hv = 0; hv < d_.HV; ++hv) {
      Matrix<double>& S = plain_.at(slots[row], hv);
      if (heads == heads_.size())
        heads_.emplace_back(), before_.emplace_back(), outputs_.emplace_back(), history_state_.emplace_back();
      prepare_head(params_, inputs_, row, hv, heads_[heads]);
      if (history_[row]) history_state_[heads] = S;
      // Of the state before the token the error budget reads only this product.
      if (budget_) ErrorBudget::decayed_key_product(S, heads_[heads], before_[heads]);
      plain_head_update(S, heads_[heads], outputs_[heads]);
      truth_out_.row(row).segment(hv * d_.V, d_.V) = outputs_[heads].transpose();
      ++heads;
    }
  }
}

void TruthTracker::judge(int64_t token, const Matrix<double>& out,
                         const std::function<Matrix<double>(int64_t, int64_t)>& checkpoint, Comparison& outputs,
                         Comparison& states) {
  std::size_t head = 0;
  for (int64_t row = 0; row < d_.B; ++row) {
    const int64_t slot = slots_[row];
    for (int64_t hv = 0; hv < d_.HV; ++hv) {
      const auto where = [&] { return fmt::format("token {} row {} slot {} hv {}", token, row, slot, hv); };
      const int64_t o = hv * d_.V;
      const auto out_index = [row, hv](int64_t v) { return fmt::format("{}, 0, {}, {}", row, hv, v); };
      if (slot < 0) {  // padding: truth 0 and floor 0 demand exact zeros
        compare_head(truth_out_.row(row).data() + o, out.row(row).data() + o, d_.V, bounds_.output, 0, where, out_index,
                     outputs);
        continue;
      }
      const HeadToken<double>& h = heads_[head];
      const Matrix<double>& S = plain_.at(slot, hv);
      ErrorBudget::TokenBounds b{bounds_.output, bounds_.state};
      const Matrix<double>* history = history_[row] ? &history_state_[head] : nullptr;
      if (budget_)
        b = budget_->token_from_key_product(slot, hv, before_[head], h, S, flush_[row], &outputs_[head], history);
      else b.state_norm = S.norm(), b.q_scaled_norm = h.q_scaled.norm();
      ++head;
      compare_head(truth_out_.row(row).data() + o, out.row(row).data() + o, d_.V, b.output,
                   output_floor(b.state_norm, b.q_scaled_norm, d_.K, d_.V, out_dtype_), where, out_index, outputs);
      if (flush_[row] || history) {
        const Matrix<double> actual = checkpoint(slot, hv);  // [V, K], row-major
        const Matrix<double>& expected = history ? *history : S;
        const auto state_index = [slot, hv, K = d_.K](int64_t i) {
          return fmt::format("{}, {}, {}, {}", slot, hv, i / K, i % K);
        };
        compare_head(expected.data(), actual.data(), d_.V * d_.K, b.state, state_floor(d_.V, d_.K, state_dtype_),
                     [&] { return where() + (history ? " (history checkpoint: the state before the token)" : " (flush)"); },
                     state_index, states);
      }
    }
  }
}

}  // namespace kda::reference
