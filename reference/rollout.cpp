#include "reference/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cases/case_tensors.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

Dims dims_of(const CaseConfig& c) { return {c.B, c.H, c.HV, c.K, c.V, c.L, c.slots}; }

Comparison compare_head(const double* expected, const double* actual, int64_t n, double bound, double floor,
                        std::string where) {
  Comparison c = compare({expected, static_cast<size_t>(n)}, {actual, static_cast<size_t>(n)}, n, bound, {&floor, 1});
  c.where = std::move(where);
  return c;
}

// What is being rolled out: one step on the case (inputs already filled), then its outputs
// [B, HV*V] and, for a flushed slot, its checkpoint [V, K].
struct Subject {
  std::function<Matrix<double>(CaseTensors&, const TokenInputs<double>&, const std::vector<int64_t>& write_pos,
                               const std::vector<int64_t>& force)>
      step;
  std::function<Matrix<double>(CaseTensors&, int64_t slot, int64_t hv)> checkpoint;
};

// Reads the [rows, cols] block at (i0, i1) of a 4-D tensor [., ., rows, cols].
Matrix<double> read_block(const DLTensor& t, int64_t i0, int64_t i1, int64_t rows, int64_t cols) {
  Matrix<double> m;
  io::gather(t, {i0 * io::stride_of(t, 0) + i1 * io::stride_of(t, 1), rows, io::stride_of(t, 2), cols, io::stride_of(t, 3)}, m);
  return m;
}

RolloutReport play(const CaseConfig& config, const Subject& subject, const RolloutBounds& bounds, CaseTensors& t,
                   bool beta_through_b = true) {
  const Dims d = dims_of(config);
  StepArgs args = t.args();
  auto params = load_params<double>(args, d);
  if (!beta_through_b) params.beta_dtype = ScalarType::Float32;
  // The ground truth starts from the state the step rebuilds (checkpoint + records up to each
  // row's cursor), so the comparison holds from the first token. The error budget (when the
  // bounds carry rounding rates) starts from the same checkpoint and records.
  PlainState<double> plain(d);
  std::optional<ErrorBudget> budget;
  if (bounds.rates) budget.emplace(*bounds.rates, d);
  {
    const auto initial = ReplayModel<double>::from_tensors(args, d);
    const auto slots = io::read_indices(*args.ssm_state_indices);
    const auto cursors = io::read_indices(*args.write_pos);
    for (int64_t row = 0; row < d.B; ++row) {
      if (slots[row] < 0) continue;
      for (int64_t hv = 0; hv < d.HV; ++hv) {
        plain.at(slots[row], hv) = initial.rebuilt_state(slots[row], hv, cursors[row]);
        if (budget)
          budget->start(slots[row], hv, initial.checkpoint(slots[row], hv),
                        read_block(*args.d_cache, slots[row], hv, cursors[row], d.V),
                        read_block(*args.k_cache, slots[row], hv / (d.HV / d.H), cursors[row], d.K),
                        read_block(*args.g_cache, slots[row], hv, cursors[row], d.K), cursors[row]);
      }
    }
  }
  RolloutReport report;
  report.config = config;
  for (int64_t token = 0; token < config.steps; ++token) {
    if (token > 0) fill_token(t, token);
    args = t.args();
    const auto inputs = load_token<double>(args, d);
    const auto write_pos = io::read_indices(*args.write_pos);
    const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(d.B, 0);
    const Matrix<double> out = subject.step(t, inputs, write_pos, force);
    // The token's heads and the float64 states before it, for the budget.
    std::vector<HeadToken<double>> heads;
    std::vector<Matrix<double>> before;
    for (int64_t row = 0; row < d.B; ++row)
      for (int64_t hv = 0; hv < d.HV && inputs.slot[row] >= 0; ++hv) {
        heads.push_back(prepare_head(params, inputs, row, hv));
        before.push_back(plain.at(inputs.slot[row], hv));
      }
    const Matrix<double> ref = plain_step(plain, params, inputs);
    std::size_t head = 0;
    for (int64_t row = 0; row < d.B; ++row) {
      const int64_t slot = inputs.slot[row];
      const bool flush = slot >= 0 && (write_pos[row] == d.L - 1 || force[row] != 0);
      report.flushes += flush ? 1 : 0;
      for (int64_t hv = 0; hv < d.HV; ++hv) {
        const std::string where = fmt::format("token {} row {} slot {} hv {}", token, row, slot, hv);
        const int64_t o = hv * d.V;
        if (slot < 0) {  // padding: reference 0 and floor 0 demand exact zeros
          report.outputs.merge(compare_head(ref.row(row).data() + o, out.row(row).data() + o, d.V, bounds.output, 0, where));
          continue;
        }
        const HeadToken<double>& h = heads[head];
        const Matrix<double>& S = plain.at(slot, hv);
        ErrorBudget::TokenBounds b{bounds.output, bounds.state};
        if (budget) b = budget->token(slot, hv, before[head], h, S, flush);
        ++head;
        report.outputs.merge(compare_head(ref.row(row).data() + o, out.row(row).data() + o, d.V, b.output,
                                          output_floor(S.norm(), h.q_scaled.norm(), d.K, d.V, config.out_dtype), where));
        if (flush) {
          const Matrix<double> actual = subject.checkpoint(t, slot, hv);
          report.states.merge(compare_head(S.data(), actual.data(), d.V * d.K, b.state,
                                           state_floor(d.V, d.K, config.state_dtype), where + " (flush)"));
        }
      }
    }
    advance_cursors(t);
    ++report.tokens;
  }
  if (budget) {
    report.max_gate_mass = budget->max_gate_mass();
    report.max_cancellation = budget->max_cancellation();
  }
  return report;
}

Matrix<double> read_out(CaseTensors& t) {
  const auto& c = t.config;
  Matrix<double> m;
  io::gather(t.out.dl(), {0, c.B, c.HV * c.V, c.HV * c.V, 1}, m);
  return m;
}

Matrix<double> read_checkpoint(CaseTensors& t, int64_t slot, int64_t hv) {
  const DLTensor& s = t.initial_state.dl();
  Matrix<double> m;
  io::gather(s, {slot * io::stride_of(s, 0) + hv * io::stride_of(s, 1), t.config.V, io::stride_of(s, 2), t.config.K,
                 io::stride_of(s, 3)}, m);
  return m;
}

}  // namespace

std::string RolloutReport::summary() const {
  return fmt::format("{} | {} tokens, {} flushes, gate mass {:.3g}, cancellation {:.3g} | outputs: {} | states: {}{}",
                     to_string(config), tokens, flushes, max_gate_mass, max_cancellation, outputs.describe(),
                     states.describe(), pass() ? "" : " | FAILED");
}

RolloutReport run_rollout(const CaseConfig& config, const StepFunction& step, const RolloutBounds& bounds,
                          bool beta_through_b) {
  CaseTensors t = materialize(config);
  Subject s;
  s.step = [&](CaseTensors& c, const TokenInputs<double>&, const std::vector<int64_t>&, const std::vector<int64_t>&) {
    step(c.args());
    return read_out(c);
  };
  s.checkpoint = read_checkpoint;
  return play(config, s, bounds, t, beta_through_b);
}

RolloutReport run_rollout(const CaseConfig& config, const StepFunction& step, double output_bound,
                          double state_bound) {
  RolloutBounds b;
  b.output = output_bound;
  b.state = state_bound;
  return run_rollout(config, step, b);
}

RolloutReport run_rollout(const CaseConfig& config, RolloutModel model) {
  if (model != RolloutModel::PureDouble) {
    const Rounding r = model == RolloutModel::Kernel ? Rounding::Kernel : Rounding::Off;
    return run_rollout(config, [r](const StepArgs& a) { replayssm_step(a, r); }, rollout_bounds(config));
  }
  CaseTensors t = materialize(config);
  const Dims d = dims_of(config);
  const StepArgs args = t.args();
  const auto params = load_params<double>(args, d);
  auto replay = ReplayModel<double>::from_tensors(args, d);
  Subject s;
  s.step = [&](CaseTensors&, const TokenInputs<double>& in, const std::vector<int64_t>& wp,
               const std::vector<int64_t>& ff) { return replay.step(params, in, wp, ff); };
  s.checkpoint = [&](CaseTensors&, int64_t slot, int64_t hv) { return replay.checkpoint(slot, hv); };
  RolloutBounds b;  // fixed bounds: no rates, no budget
  b.output = b.state = kPureDoubleBound;
  return play(config, s, b, t);
}

}  // namespace kda::reference
