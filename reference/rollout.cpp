#include "reference/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>

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

// The gate mass of each (slot, hv): sum over the ring records present of max_c |g_j[c]|
// (tolerance.cpp), starting from the records the case was materialized with.
std::vector<double> initial_gate_mass(const StepArgs& args, const Dims& d) {
  std::vector<double> mass(d.slots * d.HV, 0.0);
  const auto slots = io::read_indices(*args.ssm_state_indices);
  const auto cursors = io::read_indices(*args.write_pos);
  const DLTensor& g = *args.g_cache;
  Matrix<double> G;
  for (int64_t row = 0; row < d.B; ++row) {
    if (slots[row] < 0 || cursors[row] == 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      io::gather(g, {slots[row] * io::stride_of(g, 0) + hv * io::stride_of(g, 1), cursors[row], io::stride_of(g, 2), d.K,
                     io::stride_of(g, 3)}, G);
      mass[slots[row] * d.HV + hv] = G.cwiseAbs().rowwise().maxCoeff().sum();
    }
  }
  return mass;
}

RolloutReport play(const CaseConfig& config, const Subject& subject, const RolloutBounds& bounds, CaseTensors& t) {
  const Dims d = dims_of(config);
  StepArgs args = t.args();
  const auto params = load_params<double>(args, d);
  // The ground truth starts from the state the step rebuilds (checkpoint + records up to each
  // row's cursor), so the comparison holds from the first token.
  PlainState<double> plain(d);
  {
    const auto initial = ReplayModel<double>::from_tensors(args, d);
    const auto slots = io::read_indices(*args.ssm_state_indices);
    const auto cursors = io::read_indices(*args.write_pos);
    for (int64_t row = 0; row < d.B; ++row)
      if (slots[row] >= 0)
        for (int64_t hv = 0; hv < d.HV; ++hv) plain.at(slots[row], hv) = initial.rebuilt_state(slots[row], hv, cursors[row]);
  }
  std::vector<double> ring_mass = initial_gate_mass(args, d), seen_mass = ring_mass;
  RolloutReport report;
  report.config = config;
  for (int64_t token = 0; token < config.steps; ++token) {
    if (token > 0) fill_token(t, token);
    args = t.args();
    const auto inputs = load_token<double>(args, d);
    const auto write_pos = io::read_indices(*args.write_pos);
    const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(d.B, 0);
    const Matrix<double> out = subject.step(t, inputs, write_pos, force);
    std::vector<HeadToken<double>> heads;  // the token's gates and queries, before the state moves
    for (int64_t row = 0; row < d.B; ++row)
      for (int64_t hv = 0; hv < d.HV; ++hv)
        if (inputs.slot[row] >= 0) heads.push_back(prepare_head(params, inputs, row, hv));
    const Matrix<double> ref = plain_step(plain, params, inputs);
    auto head = heads.begin();
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
        const HeadToken<double>& h = *head++;
        const int64_t i = slot * d.HV + hv;
        const double g_abs = h.g.cwiseAbs().maxCoeff();
        seen_mass[i] = std::max(seen_mass[i], ring_mass[i] + g_abs);
        report.max_gate_mass = std::max(report.max_gate_mass, seen_mass[i]);
        const Matrix<double>& S = plain.at(slot, hv);
        report.outputs.merge(compare_head(ref.row(row).data() + o, out.row(row).data() + o, d.V,
                                          bounds.output_at(seen_mass[i]),
                                          output_floor(S.norm(), h.q_scaled.norm(), d.K, d.V, config.out_dtype), where));
        if (flush) {
          const Matrix<double> actual = subject.checkpoint(t, slot, hv);
          report.states.merge(compare_head(S.data(), actual.data(), d.V * d.K, bounds.state_at(seen_mass[i]),
                                           state_floor(d.V, d.K, config.state_dtype), where + " (flush)"));
        }
        ring_mass[i] = flush ? 0.0 : ring_mass[i] + g_abs;
      }
    }
    advance_cursors(t);
    ++report.tokens;
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
  return fmt::format("{} | {} tokens, {} flushes, gate mass {:.3g} | outputs: {} | states: {}{}", to_string(config),
                     tokens, flushes, max_gate_mass, outputs.describe(), states.describe(), pass() ? "" : " | FAILED");
}

RolloutReport run_rollout(const CaseConfig& config, const StepFunction& step, const RolloutBounds& bounds) {
  CaseTensors t = materialize(config);
  Subject s;
  s.step = [&](CaseTensors& c, const TokenInputs<double>&, const std::vector<int64_t>&, const std::vector<int64_t>&) {
    step(c.args());
    return read_out(c);
  };
  s.checkpoint = read_checkpoint;
  return play(config, s, bounds, t);
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
  RolloutBounds b;
  b.output = b.state = kPureDoubleBound;
  return play(config, s, b, t);
}

}  // namespace kda::reference
