#include "engine/driver/run_case.hpp"

#include "engine/description/operator_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>

#include "cases/case_tensors.hpp"
#include "contract/validate.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/host_guards.hpp"
#include "engine/reports/phase_times.hpp"
#include "engine/oracles/reference_oracle.hpp"
#include "engine/oracles/spare_cores.hpp"
#include "engine/driver/token_prefetch.hpp"
#include "engine/oracles/truth_oracle.hpp"

namespace kda::engine {
namespace {

std::string status_mismatch(const std::vector<RowPlan>& plans, const std::vector<int32_t>& got) {
  if (got.size() != plans.size()) return "status has " + std::to_string(got.size()) + " rows";
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (got.at(row) != plans[row].status)
      return "row " + std::to_string(row) + ": kernel status " + std::to_string(got[row]) + ", expected " +
             std::to_string(plans[row].status);
  return "";
}

// The caller's protocol after a step (contract/ring_protocol.hpp): an accepted row's
// write_pos (and circular cache_base) advanced by the step it took; padding and rejected rows
// keep theirs.
void advance_cursors(StepTensors& t, const std::vector<RowPlan>& plans) {
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].accepted()) set_ring_cursor(t, static_cast<int64_t>(row), plans[row].ring.after(plans[row].step()));
}

CaseReport run_config(const OperatorCase& given, Backend& backend, const std::string& against,
                      const std::function<std::unique_ptr<Oracle>(const CaseTensors&)>& make_oracle,
                      const StepMutator& mutate) {
  const OperatorDescription& op = backend.op();
  if (given.op == nullptr || given.op->name != op.name)
    throw std::invalid_argument(fmt::format("a case of {} played on a backend of {}",
                                            given.op == nullptr ? "no operator" : given.op->name, op.name));
  const PhaseScope other(Phase::Other);
  const PlayingCase playing;  // shares the machine's cores with the other cases being played
  const CaseConfig& config = given.config;
  CaseReport r = start_report(config, backend, against);
  CaseTensors t = timed(Phase::Fill, [&] { return materialize_case(op, config); });
  const std::unique_ptr<Oracle> oracle = timed(Phase::Fill, [&] { return make_oracle(t); });
  if (op.case_driver) {  // an operator that makes its own steps' inputs
    CasePlay play{t, config.steps, [&t, &op](int64_t step) { fill_case_step(op, t, step); }, true, nullptr};
    if (mutate) play.mutate = [&t, &mutate](int64_t token) { mutate(t, token); };
    run_case(play, backend, *oracle, r);
    return r;
  }
  // Each token's inputs are made while the token before it is played, where a core is spare.
  TokenPrefetch prefetch(t);
  if (config.steps > 1) prefetch.start(1);
  const auto load = [&t, &prefetch, steps = config.steps](int64_t token) {
    prefetch.take(t, token);
    if (token + 1 < steps) prefetch.start(token + 1);
  };
  CasePlay play{t, config.steps, load, true, nullptr};
  if (mutate) play.mutate = [&t, &mutate](int64_t token) { mutate(t, token); };
  run_case(play, backend, *oracle, r);
  return r;
}

}  // namespace

Dims case_dims(const OperatorDescription& op, StepTensors& tensors) {
  Dims d = op.validate(op.bind(tensors.args()), kda::Backend::Cpu);
  if (op.case_driver) return d;  // the operator's own call: its dims are validate()'s
  d.L = tensors.d_cache.shape()[2];
  return d;
}

CaseReport start_report(const CaseConfig& config, const Backend& backend, const std::string& against) {
  CaseReport r;
  r.config = config;
  r.backend = backend.name();
  r.backend_spec = backend.spec();
  r.op = std::string(backend.op().name);
  r.against = against;
  return r;
}

void run_case(const CasePlay& play, Backend& backend, Oracle& oracle, CaseReport& r) {
  const PhaseScope other(Phase::Other);
  count_case();
  const OperatorDescription& op = backend.op();
  StepTensors& t = play.tensors;
  std::vector<RowPlan> plans;
  Dims dims;
  std::optional<WrittenBytes> before;
  HostGuards host_guards;  // a host backend's tensors are lent between guard regions
  const bool guarded = lends_host_memory(backend);
  for (int64_t token = 0; token < play.steps; ++token) {
    if (token > 0 && play.load) timed(Phase::Fill, [&] { play.load(token); });
    // A mutation lasts one step: afterwards the case's own indices and cursors return.
    const HostTensor indices = t.ssm_state_indices, cursors = t.write_pos;
    const std::optional<HostTensor> bases = t.cache_base;
    if (play.mutate) play.mutate(token);
    // The rows are planned as ReplaySSM's; the backend gets the arguments its operator takes.
    dims = case_dims(op, t);
    plans = plan_case_rows(op, t.args(), dims);
    const bool any_rejected = std::any_of(plans.begin(), plans.end(), [](const RowPlan& p) { return p.rejected(); });
    std::memset(t.out.storage().data(), 0xFF, t.out.storage().size());  // NaN: unwritten elements show
    timed(Phase::Footprint, [&] {
      if (!before) before.emplace();
      snapshot_written(t.args(), *before);  // into the last step's buffers
    });
    const std::string where = "token " + std::to_string(token);

    // A backend that computes elsewhere runs its step while the oracle prepares (the oracle
    // reads only the step's inputs and what earlier steps stored, which the host tensors
    // keep until the step finishes); any other steps after the oracle prepared.
    std::string refused;
    const auto attempt = [&refused](const auto& step) {
      try {
        const PhaseScope stepping(Phase::Step);
        step();
      } catch (const std::bad_alloc&) {
        throw;  // the harness's own memory, not the backend's verdict
      } catch (const std::exception& e) {
        refused = e.what();
        if (refused.empty()) refused = "(an exception without a message)";
      }
    };
    const StepArgs args = op.bind(t.args());
    bool started = false;
    if (!guarded) attempt([&] { started = backend.start_step(args); });
    const StepView view{token, where, t, dims, plans, *before, started};
    timed(Phase::Reference, [&] { oracle.before_step(view); });
    if (refused.empty())
      attempt([&] {
        if (started) backend.finish_step();
        else if (guarded) host_guards.step(backend, args);
        else backend.step(args);
      });
    ++r.tokens;
    count_step();
    if (!host_guards.damage().empty()) {
      r.failure = where + ": " + host_guards.damage();
      return;
    }
    const std::optional<std::vector<int32_t>> status = timed(Phase::Download, [&] { return backend.row_status(); });
    if (!status && backend.envelope().invalid_rows == InvalidRows::Flag) {
      r.failure = where + ": the backend declares that it flags invalid rows, but reported no row status";
      return;
    }
    if (!status && any_rejected && backend.envelope().invalid_rows == InvalidRows::None) {
      // Probed (check --probe-invalid-indices): nothing is claimed, so nothing is compared after it.
      if (!backend.guards_intact()) r.failure = where + ": a device guard region changed";
      else r.note = refused.empty() ? "computed the call, nothing written outside its tensors" : "refused the call: " + refused;
      return;
    }
    if (!status && any_rejected) {
      // A backend that cannot report rows must raise on runtime-invalid indices, and write nothing.
      if (refused.empty()) r.failure = where + (has_ring(op) ? ": a row with an invalid slot or cursor was not refused" : ": a row with an invalid slot was not refused");
      else if (std::string f = timed(Phase::Footprint, [&] { return any_change(*before, t.args()); }); !f.empty())
        r.failure = where + ": refused, but wrote: " + f;
      if (!r.failure.empty()) return;
      for (const RowPlan& p : plans) r.rejected_rows += p.rejected();
      t.ssm_state_indices.copy_bytes_from(indices);
      t.write_pos.copy_bytes_from(cursors);
      if (bases) t.cache_base->copy_bytes_from(*bases);
      continue;
    }
    if (!refused.empty()) {
      r.failure = where + ": the backend refused a valid call: " + refused;
      return;
    }
    if (status) {
      if (std::string m = status_mismatch(plans, *status); !m.empty()) r.failure = where + ": " + m;
    }
    if (r.failure.empty()) {
      const PhaseScope footprint(Phase::Footprint);
      if (std::string f = case_footprint_violation(op, *before, t.args(), dims, plans); !f.empty())
        r.failure = where + ": " + f;
      else if (!backend.guards_intact()) r.failure = where + ": a device guard region changed";
    }
    timed(Phase::Compare, [&] { oracle.judge_step(view, r); });
    for (const RowPlan& p : plans) {
      if (!p.accepted()) r.rejected_rows += p.rejected();
      else p.flush ? ++r.flushes : ++r.appends;
    }
    if (!r.pass()) return;
    t.ssm_state_indices.copy_bytes_from(indices);
    t.write_pos.copy_bytes_from(cursors);
    if (bases) t.cache_base->copy_bytes_from(*bases);
    if (op.case_driver) {  // the operator's own protocol between steps
      if (play.advance_cursors) op.case_driver->after_step(t, plans);
      continue;
    }
    if (play.advance_cursors) advance_cursors(t, plans);
    for (std::size_t row = 0; row < plans.size(); ++row) {  // the end check sees the advanced cursors
      plans[row].cursor = static_cast<int64_t>(t.write_pos.get_linear(static_cast<int64_t>(row)));
      plans[row].ring.write_pos = plans[row].cursor;
      if (bases) plans[row].ring.base = static_cast<int64_t>(t.cache_base->get_linear(static_cast<int64_t>(row)));
    }
  }
  if (!before) return;
  timed(Phase::Compare, [&] { oracle.finish({play.steps, "end of rollout", t, dims, plans, *before}, r); });
}

CaseReport run_vs_reference(const CaseConfig& config, Backend& backend, const StepMutator& mutate) {
  return run_vs_reference(fit(backend.op(), config), backend, mutate);
}

CaseReport run_vs_truth(const CaseConfig& config, Backend& backend) { return run_vs_truth(fit(backend.op(), config), backend); }

CaseReport run_vs_reference(const OperatorCase& c, Backend& backend, const StepMutator& mutate) {
  return run_config(
      c, backend, "reference",
      [&backend](const CaseTensors& t) {
        if (const CaseDriver* d = backend.op().case_driver)
          return d->reference_oracle(t, backend.op(), backend.profile(), backend.rounds_directed());
        return reference_oracle(t, backend.op(), backend.profile(), backend.rounds_directed());
      },
      mutate);
}

CaseReport run_vs_truth(const OperatorCase& c, Backend& backend) {
  return run_config(
      c, backend, "truth",
      [&backend](const CaseTensors& t) {
        if (const CaseDriver* d = backend.op().case_driver) return d->truth_oracle(t, backend.profile(), backend.rounds_directed());
        return truth_oracle(bounds_vs_truth(t.config, backend.profile(), backend.rounds_directed()),
                            backend.op().beta_through_b, backend.op().as_kda_call);
      },
      nullptr);
}

}  // namespace kda::engine
