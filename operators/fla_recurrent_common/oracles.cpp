// The recurrent decode family's oracles: the CPU reference stepped in lockstep (from the pool the backend
// stored, its T tokens within the two sides' running error budgets), and the float64
// recurrence over the whole rollout (a float64 state and a running budget per slot: a row's
// chain continues from the slot it resumes from into each slot it writes). Both judge every
// live row's out at every token and the state stored at each of its written slots; a padding
// or rejected row's out is not judged (the caller ignores it) and its slots are guarded by the
// footprint check alone.
#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <span>
#include <utility>

#include "engine/description/profile.hpp"
#include "operators/fla_recurrent_common/contract.hpp"
#include "operators/fla_recurrent_common/driver.hpp"
#include "operators/fla_recurrent_common/recurrence.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {
namespace {

using reference::Matrix;
using reference::Vector;

// The budgets' dims: one entry per (row, hv), the row standing for the slot.
Dims budget_dims(const Dims& d) { return Dims{d.B, d.H, d.HV, d.K, d.V, 1, d.B}; }

void start_budget(reference::ErrorBudget& b, int64_t row, int64_t hv, const Matrix<double>& S, const Dims& d) {
  const Matrix<double> D(0, d.V), Kr(0, d.K), G(0, d.K);
  b.start(row, hv, S, D, Kr, G, 0);
}

// out[row, t, hv, :] of a contiguous out [B, T, HV, V].
std::vector<double> out_head(const HostTensor& out, const Dims& d, int64_t row, int64_t t, int64_t hv) {
  std::vector<double> x(static_cast<std::size_t>(d.V));
  const int64_t first = ((row * d.T + t) * d.HV + hv) * d.V;
  for (int64_t e = 0; e < d.V; ++e) x[static_cast<std::size_t>(e)] = out.get_linear(first + e);
  return x;
}

std::vector<double> state_of(const HostTensor& pool, const Dims& d, bool v_first, int64_t slot, int64_t hv) {
  Matrix<double> S;
  reference::read_fla_state(pool.dl(), d, v_first, slot, hv, S);
  return {S.data(), S.data() + S.size()};
}

void judge(std::span<const double> expected, std::span<const double> actual, int64_t n, double tolerance, double floor,
           const std::string& where, reference::Comparison& into) {
  reference::Comparison c = reference::compare(expected, actual, n, tolerance, std::span<const double>(&floor, 1));
  c.where = where;
  into.merge(c);
}

// A step's bounds per (row, token, hv) of the plans' accepted rows: out's and the stored state's.
struct Bound {
  double out = 0, out_floor = 0, state = 0, state_floor = 0;
};

class FlaReferenceOracle final : public Oracle {
 public:
  FlaReferenceOracle(const CaseTensors& m, const OperatorDescription& op, Profile profile, bool directed)
      : op_(op), ref_(m),
        backend_(reference::from_stored_records(reference::rounding_rates(m.config, profile == Profile::Triton, directed))),
        reference_(reference::from_stored_records(reference::rounding_rates(m.config))) {}

  void before_step(const StepView& v) override {
    const StepTensors& b = v.tensors;
    for (auto [to, from] : {std::pair{&ref_.q, &b.q}, {&ref_.k, &b.k}, {&ref_.v, &b.v}, {&ref_.g, &b.g}, {&ref_.beta, &b.beta},
                            {&ref_.num_accepted_tokens, &b.num_accepted_tokens}})
      if (*to) (*to)->copy_bytes_from(**from);
    ref_.initial_state.copy_bytes_from(b.initial_state);
    ref_.ssm_state_indices.copy_bytes_from(b.ssm_state_indices);
    const int64_t per_row = ref_.ssm_state_indices.dl().ndim == 2 ? v.dims.T : 1;
    for (std::size_t row = 0; row < v.plans.size(); ++row)  // the reference sees a rejected row as padding
      if (v.plans[row].rejected())
        for (int64_t t = 0; t < per_row; ++t) ref_.ssm_state_indices.set_linear(static_cast<int64_t>(row) * per_row + t, -1);
    bounds_ = step_bounds(v.dims, v.plans);
  }

  void judge_step(const StepView& v, CaseReport& r) override {
    op_.reference_step(op_.bind(ref_.args()), reference::Rounding::Kernel);
    const Dims& d = v.dims;
    const StepArgs args = ref_.args();
    for (int64_t row = 0; row < d.B; ++row) {
      if (!v.plans[static_cast<std::size_t>(row)].accepted()) continue;
      const std::vector<int64_t> written = fla_written_slots(args, d, row);
      for (int64_t t = 0; t < d.T; ++t)
        for (int64_t hv = 0; hv < d.HV; ++hv) {
          const Bound& b = bounds_.at({row, t, hv});
          judge(out_head(ref_.out, d, row, t, hv), out_head(v.tensors.out, d, row, t, hv), d.V, b.out, b.out_floor,
                fmt::format("out[{}, {}, {}] ({} row {}, token {} of the call, value head {})", row, t, hv, v.where, row, t, hv),
                r.out);
          const int64_t slot = written[static_cast<std::size_t>(t)];
          if (t + 1 < d.T && written[static_cast<std::size_t>(t) + 1] == slot) continue;  // overwritten by the next token
          judge(state_of(ref_.initial_state, d, ref_.state_v_first, slot, hv),
                state_of(v.tensors.initial_state, d, ref_.state_v_first, slot, hv), d.V * d.K, b.state, b.state_floor,
                fmt::format("initial_state[{}, {}] ({} row {}: the state after token {} of the call, value head {})", slot, hv,
                            v.where, row, t, hv),
                r.state);
        }
    }
  }
  void finish(const StepView&, CaseReport&) override {}

 private:
  // The float64 trajectory of each accepted row from the pool as stored, each token's error
  // bounded by the backend's and the reference's budgets (both started from the stored state).
  std::map<std::array<int64_t, 3>, Bound> step_bounds(const Dims& d, const std::vector<RowPlan>& plans) {
    std::map<std::array<int64_t, 3>, Bound> bounds;
    const StepArgs args = ref_.args();
    const reference::FlaTokens<double> x = reference::load_fla_tokens<double>(args, d);
    reference::ErrorBudget mine(backend_, budget_dims(d)), theirs(reference_, budget_dims(d));
    reference::HeadToken<double> h;
    Matrix<double> S, before;
    Vector<double> o;
    for (int64_t row = 0; row < d.B; ++row) {
      if (!plans[static_cast<std::size_t>(row)].accepted()) continue;
      for (int64_t hv = 0; hv < d.HV; ++hv) {
        reference::read_fla_state(ref_.initial_state.dl(), d, ref_.state_v_first, plans[static_cast<std::size_t>(row)].slot, hv, S);
        start_budget(mine, row, hv, S, d);
        start_budget(theirs, row, hv, S, d);
        for (int64_t t = 0; t < d.T; ++t) {
          reference::fla_head(x, d, row, t, hv, h);
          before = S;
          reference::plain_head_update(S, h, o);
          const auto a = mine.token(row, hv, before, h, S, true, &o), b = theirs.token(row, hv, before, h, S, true, &o);
          bounds[{row, t, hv}] = {a.output + b.output, a.output_scale, a.state + b.state, a.state_scale};
        }
      }
    }
    return bounds;
  }

  const OperatorDescription& op_;
  CaseTensors ref_;
  reference::RoundingRates backend_, reference_;
  std::map<std::array<int64_t, 3>, Bound> bounds_;
};

class FlaTruthOracle final : public Oracle {
 public:
  FlaTruthOracle(const CaseTensors& m, Profile profile, bool directed)
      : rates_(reference::rounding_rates(m.config, profile == Profile::Triton, directed)), v_first_(m.config.v_first),
        out_dtype_(m.config.out_dtype), state_dtype_(m.config.state_dtype) {}

  void before_step(const StepView& v) override {
    if (budget_) return;
    // The states before the first call: every slot a live row names, as materialized (exact:
    // each slot's budget starts there).
    const Dims& d = v.dims;
    budget_.emplace(rates_, Dims{d.B, d.H, d.HV, d.K, d.V, 1, d.slots});
    const StepArgs args = v.tensors.args();
    for (int64_t row = 0; row < d.B; ++row) {
      if (fla_index(*args.ssm_state_indices, row, 0) < 0) continue;
      for (int64_t s : fla_written_slots(args, d, row))
        for (int64_t hv = 0; hv < d.HV; ++hv) {
          if (s < 0 || s >= d.slots) continue;
          Matrix<double>& S = truth_[{s, hv}];
          reference::read_fla_state(v.tensors.initial_state.dl(), d, v_first_, s, hv, S);
          start_budget(*budget_, s, hv, S, d);
        }
    }
  }

  void judge_step(const StepView& v, CaseReport& r) override {
    const Dims& d = v.dims;
    const StepArgs args = v.tensors.args();
    const reference::FlaTokens<double> x = reference::load_fla_tokens<double>(args, d);
    std::map<std::pair<int64_t, int64_t>, Matrix<double>> after;
    reference::HeadToken<double> h;
    Matrix<double> before;
    Vector<double> o;
    for (int64_t row = 0; row < d.B; ++row) {
      const RowPlan& p = v.plans[static_cast<std::size_t>(row)];
      if (!p.accepted()) continue;
      const std::vector<int64_t> written = fla_written_slots(args, d, row);
      for (int64_t hv = 0; hv < d.HV; ++hv) {
        Matrix<double> S = truth_.at({p.slot, hv});
        int64_t from = p.slot;  // the slot whose budget the chain continues
        for (int64_t t = 0; t < d.T; ++t) {
          const int64_t slot = written[static_cast<std::size_t>(t)];
          if (slot != from) budget_->continue_in(from, slot, hv);
          from = slot;
          reference::fla_head(x, d, row, t, hv, h);
          before = S;
          reference::plain_head_update(S, h, o);
          const auto b = budget_->token(slot, hv, before, h, S, true, &o);
          const std::vector<double> expected(o.data(), o.data() + o.size());
          judge(expected, out_head(v.tensors.out, d, row, t, hv), d.V, b.output,
                reference::output_floor(b.state_norm, b.q_scaled_norm, d.K, d.V, out_dtype_),
                fmt::format("token {} of {} row {} value head {}", t, v.where, row, hv), r.out);
          after[{slot, hv}] = S;
          if (t + 1 < d.T && written[static_cast<std::size_t>(t) + 1] == slot) continue;
          judge(std::vector<double>(S.data(), S.data() + S.size()), state_of(v.tensors.initial_state, d, v_first_, slot, hv),
                d.V * d.K, b.state, reference::state_floor(d.V, d.K, state_dtype_),
                fmt::format("initial_state[{}, {}] ({} row {}: the state after token {} of the call)", slot, hv, v.where, row, t),
                r.state);
        }
      }
    }
    for (auto& [key, S] : after) truth_[key] = std::move(S);
    // After every call: a failing one ends the rollout before finish().
    r.max_gate_mass = budget_->max_gate_mass();
    r.max_cancellation = budget_->max_cancellation();
  }
  void finish(const StepView&, CaseReport&) override {}

 private:
  reference::RoundingRates rates_;
  bool v_first_;
  ScalarType out_dtype_, state_dtype_;
  std::optional<reference::ErrorBudget> budget_;  // per (slot, hv)
  std::map<std::pair<int64_t, int64_t>, Matrix<double>> truth_;  // (slot, hv) -> S [V, K]
};

}  // namespace

std::unique_ptr<Oracle> fla_reference_oracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile,
                                             bool directed) {
  return std::make_unique<FlaReferenceOracle>(materialized, op, profile, directed);
}

std::unique_ptr<Oracle> fla_truth_oracle(const CaseTensors& materialized, const OperatorDescription&, Profile profile, bool directed) {
  return std::make_unique<FlaTruthOracle>(materialized, profile, directed);
}

}  // namespace kda::engine
