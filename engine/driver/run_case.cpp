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
#include "engine/oracles/spare_cores.hpp"
#include "engine/reports/phase_times.hpp"

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
  const CaseDriver& driver = driver_of(op);
  CaseTensors t = timed(Phase::Fill, [&] { return driver.materialize(config); });
  const std::unique_ptr<Oracle> oracle = timed(Phase::Fill, [&] { return make_oracle(t); });
  StepLoader load = driver.loader ? driver.loader(t, config.steps)
                                  : StepLoader([&t, &driver](int64_t step) { driver.fill_step(t, step); });
  CasePlay play{t, config.steps, std::move(load), true, nullptr};
  if (mutate) play.mutate = [&t, &mutate](int64_t token) { mutate(t, token); };
  run_case(play, backend, *oracle, r);
  return r;
}

}  // namespace

Dims case_dims(const OperatorDescription& op, StepTensors& tensors) {
  return driver_of(op).dims(tensors, op.validate(op.bind(tensors.args()), kda::Backend::Cpu));
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
  const CaseDriver& driver = driver_of(op);
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
    // The rows are planned from the whole case's tensors; the backend gets the arguments its operator takes.
    dims = case_dims(op, t);
    plans = driver.plan_rows(t.args(), dims);
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
      if (std::string f = driver.footprint_violation(*before, t.args(), dims, plans); !f.empty())
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
    driver.after_step(t, plans, play.advance_cursors);
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
        return driver_of(backend.op()).reference_oracle(t, backend.op(), backend.profile(), backend.rounds_directed());
      },
      mutate);
}

CaseReport run_vs_truth(const OperatorCase& c, Backend& backend) {
  return run_config(
      c, backend, "truth",
      [&backend](const CaseTensors& t) {
        return driver_of(backend.op()).truth_oracle(t, backend.op(), backend.profile(), backend.rounds_directed());
      },
      nullptr);
}

}  // namespace kda::engine
