#include "engine/driver/suites.hpp"

#include "engine/description/operator_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "cases/case_tensors.hpp"
#include "contract/error_catalog.hpp"
#include "contract/validate.hpp"
#include "engine/description/case_breaking.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/restriction.hpp"
#include "engine/description/row_plan.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/defaults.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/oracles/refusal.hpp"

namespace kda::engine {

const std::vector<SuiteInfo>& suite_table() {
  static const std::vector<SuiteInfo> suites = {
      {"contract", false, false, true, 40000, 0,
       "random valid calls (B up to 1024, K and V from 1) accepted with their dims; sets of one or two error inputs "
       "raise the earliest check's exact catalog error"},
      {"contract-catalogue", false, false, true, 100000, 1,
       "the error inputs (every check, every variant, sets of up to four) over random valid calls of the contract "
       "tests' ranges"},
      {"reference", false, false, true, 8000, 0,
       "the operator's CPU reference (kernel rounding points) vs the float64 plain recurrence over random rollouts, "
       "within the dtype-derived bounds"},
      {"pure-double", false, false, true, 5000, 1,
       "float64 ReplaySSM model vs the float64 plain recurrence (1e-10) over random rollouts (of the operator's "
       "cases: L = 1 for the plain packed decode)"},
      {"golden", false, false, true, -1, 0, "the golden set (hashes, then every case) on the CPU reference"},
      {"kernel", true, true, true, 2000, 2,
       "the backend (CUDA kernel, plugin or Python callable) vs the CPU reference step by step: outputs, "
       "checkpoints, rings, row status, footprint, guards, within its profile's bounds; padding rows at the "
       "ends of the batch in one case in four; where the backend claims invalid rows (raise or flag), one case in "
       "five gives a row an invalid cursor or slot, which must be refused (nothing written) or flagged; one in ten "
       "is a call just outside the backend's envelope, which must be refused"},
      {"kernel-truth", true, true, true, 1000, 3, "the backend vs the float64 plain recurrence over random rollouts"},
      {"golden-kernel", true, false, true, -1, 0,
       "the golden set on the backend (cases outside its envelope must be refused)"},
      {"envelope", true, true, true, 200, 4,
       "calls just outside the backend's declared envelope are refused, nothing written"},
      // Not in the default check: the CLI's CUDA backend validates with the harness's own
      // contract, and the planted bugs of `mutants` are calibrated on the suites above.
      {"kernel-contract", true, true, false, 200, 5,
       "each documented check's error input on a valid call inside the backend's envelope is refused with the "
       "contract's exact message, nothing written (with any message where only a harness extension refuses the "
       "input)"},
  };
  return suites;
}

const SuiteInfo* find_suite(std::string_view name) {
  for (const SuiteInfo& s : suite_table())
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

std::string drawn_names_joined(std::string_view separator, bool only_default = false) {
  std::string s;
  for (const SuiteInfo& info : suite_table())
    if (info.drawn && (info.in_default_check || !only_default))
      s += (s.empty() ? std::string() : std::string(separator)) + std::string(info.name);
  return s;
}

// The names the C library's suites had before they took the CLI's.
std::string former_name_of(std::string_view name) {
  if (name == "rollout") return "kernel";
  if (name == "truth") return "kernel-truth";
  return "";
}

}  // namespace

const std::string& drawn_suite_names() {
  static const std::string names = drawn_names_joined(",");
  return names;
}

const std::string& default_drawn_suite_names() {
  static const std::string names = drawn_names_joined(",", true);
  return names;
}

std::string suite_problem(std::string_view name) {
  if (find_suite(name) != nullptr) return "";
  const std::string now = former_name_of(name);
  if (!now.empty()) return fmt::format("unknown suite '{}': that suite is now named '{}'", name, now);
  return fmt::format("unknown suite '{}'", name);
}

std::string backend_suite_problem(std::string_view name) {
  const std::string known = drawn_names_joined(", ");
  const SuiteInfo* s = find_suite(name);
  if (s == nullptr) return fmt::format("{} (known: {})", suite_problem(name), known);
  if (s->drawn) return "";
  if (!s->judges_backend)
    return fmt::format("suite '{}' judges the harness itself, not a backend: run it with `kda-harness check --suites {}`"
                       "{} (known: {})",
                       name, name,
                       name == "contract" ? "; a backend's refusals of the error inputs are the suite 'kernel-contract'" : "",
                       known);
  return fmt::format("suite '{}' needs the golden set's files: run it with `kda-harness check --backend plugin:PATH "
                     "--suites {}` (known: {})",
                     name, name, known);
}

namespace {

// One kernel case in kInvalidRowEvery makes one row runtime-invalid at one token: its cursor
// past the ring (a live row, where the operator reads cursors) or its slot past the pool.
// The backend must refuse the call and write nothing, or flag the row in its status and touch
// nothing of it (engine::run_vs_reference); the reference sees the row as padding.
constexpr int64_t kInvalidRowEvery = 5;
// Every kOutsideEvery-th case of the kernel suite is a call just outside the envelope (the
// slot before each tenth: not an invalid-row case).
constexpr int64_t kOutsideEvery = 10;

struct InvalidRow {
  StepMutator mutate;
  std::string what;
};
InvalidRow invalid_row(const OperatorDescription& op, const CaseConfig& drawn, int64_t n) {
  const CaseConfig c = op.fit_case(drawn);  // the pool's size as the case has it (an operator may add slots)
  const int64_t token = n % c.steps, row = n % c.B;
  const bool reads_cursors = takes(op, "write_pos");
  InvalidRow bad;
  bad.what = reads_cursors ? fmt::format("at token {}, row {}'s cursor set to {} (past the ring), or its slot to {} "
                                         "(past the pool) if it is a padding row",
                                         token, row, c.L, c.slots)
                           : fmt::format("at token {}, row {}'s slot set to {} (past the pool)", token, row, c.slots);
  bad.mutate = [token, row, reads_cursors, L = c.L, slots = c.slots](CaseTensors& t, int64_t at) {
    if (at != token) return;
    // The row's first index: [B] indices, or the first of its [B, T] (the one that makes it live).
    const int64_t first = row * (t.ssm_state_indices.numel() / t.config.B);
    if (reads_cursors && t.ssm_state_indices.get_linear(first) >= 0)
      t.write_pos.set_linear(row, static_cast<double>(L));
    else
      t.ssm_state_indices.set_linear(first, static_cast<double>(slots));
  };
  return bad;
}

// What the error inputs need of the valid case: B, HV, K and V of at least 2 (so that none
// declines), one token, drawn small (the case runs one step).
constexpr int64_t kErrorInputMinSize = 2;
constexpr double kErrorInputWorkBudget = 2e4;

// The operator's error inputs of the documented checks that raise their own id on host
// tensors: not the device checks (V9, R9, R10), not P0 and R4-short (they raise V1's and R5's
// messages), not the harness's extensions.
std::vector<std::size_t> documented_inputs(const OperatorDescription& op) {
  std::vector<std::size_t> out;
  const auto& inputs = op.error_inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& l = inputs[i].label;
    if (l.rfind("X-", 0) == 0 || l == "P0" || l == "R4-short" || l == "V9" || l == "R9" || l == "R10") continue;
    out.push_back(i);
  }
  return out;
}

// A valid case of the backend's operator for the error inputs: inside the envelope, with B,
// HV, K, V >= 2.
std::optional<CaseConfig> error_input_base(const Backend& b, const CaseConfig& drawn) {
  CaseConfig c = drawn;
  c.B = std::max(c.B, kErrorInputMinSize);
  c.slots = std::max(c.slots, c.B);
  if (c.HV < kErrorInputMinSize) c.HV = c.H * kErrorInputMinSize;
  c.K = std::max(c.K, kErrorInputMinSize);
  c.V = std::max(c.V, kErrorInputMinSize);
  c.steps = 1;
  const std::optional<CaseConfig> inside = b.envelope().fit(c);
  if (!inside) return std::nullopt;
  return b.op().fit_case(*inside);
}

CaseReport ran_nothing(const PlannedCase& p, const Backend& b, const std::string& against) {
  CaseReport r = start_report(p.config, b, against);
  r.what = p.call.empty() ? p.problem : p.call;
  return r;
}

CaseReport error_input_case(const PlannedCase& p, Backend& b) {
  const OperatorDescription& op = b.op();
  const std::vector<ErrorInput>& inputs = op.error_inputs();
  const std::string label = p.call.substr(std::string_view("error input ").size());
  const auto input = std::find_if(inputs.begin(), inputs.end(), [&](const ErrorInput& e) { return e.label == label; });
  if (input == inputs.end()) throw std::logic_error(fmt::format("the operator has no error input {}", label));
  CaseReport r = ran_nothing(p, b, "contract");
  CaseTensors t = materialize_case(op, p.config);
  const std::optional<Expected> broken =
      break_case(op, t, {static_cast<std::size_t>(input - inputs.begin()), 0});
  if (!broken) throw std::logic_error(fmt::format("error input {} does not apply to {}", label, to_string(p.config)));
  try {
    op.validate(op.bind(t.args()), kda::Backend::Any);
    throw std::logic_error(fmt::format("error input {} did not make validate() raise", label));
  } catch (const ContractError& e) {
    if (e.id() != broken->id || e.what() != broken->message)
      throw std::logic_error(
          fmt::format("error input {} made validate() raise {} instead of {}", label, e.id(), broken->id));
  }
  const std::string& expected = broken->message;
  // An input that only a harness extension refuses (the wrapper meets a framework error
  // there, e.g. G16-short's IndexError, or nothing at all): a real kernel cannot raise the
  // harness's own text, so any refusal that writes nothing passes, and the note says which.
  const CatalogEntry* entry = find_catalog_entry(broken->id);
  const bool any_message = entry != nullptr && entry->is_extension();
  const WrittenBytes before = snapshot_written(t.args());
  std::string raised;
  bool refused = true;
  try {
    b.step(op.bind(t.args()));
    refused = false;
  } catch (const std::exception& e) {  // a ContractError, or a refusal whose text is no catalog message
    raised = e.what();
  }
  const std::string changed = any_change(before, t.args());
  if (!refused && any_message)
    r.failure = fmt::format("accepted an invalid call; expected a refusal, any message (only the harness's extension "
                            "{} refuses it: {})",
                            broken->id, expected);
  else if (!refused) r.failure = fmt::format("accepted an invalid call; expected ValueError: {}", expected);
  else if (raised != expected && !any_message)
    r.failure = fmt::format("raised '{}'; expected ValueError: {}", raised, expected);
  else if (!changed.empty()) r.failure = fmt::format("refused the call ({}) but changed {}", label, changed);
  else if (any_message)
    r.note = fmt::format("refused with '{}', nothing written (any message: only the harness's extension {} refuses "
                         "{})",
                         raised, broken->id, label);
  else r.note = fmt::format("refused with {}: {}", label, expected);
  if (!r.failure.empty()) r.what += ": " + r.failure;  // a report with `what` shows it alone
  return r;
}

CaseReport outside_case(const PlannedCase& p, Backend& b) {
  CaseTensors t = materialize_case(b.op(), p.config);
  const std::string why = refusal_problem(b, t.args());
  CaseReport r = start_report(p.config, b, "reference");
  r.outside_envelope = b.envelope().excludes(p.config);
  if (!why.empty()) r.failure = fmt::format("outside the envelope ({}), token 0: {}", r.outside_envelope, why);
  else r.note = "refused (" + r.outside_envelope + "), nothing written";
  return r;
}

}  // namespace

std::string pin_error(std::string_view pin) {
  try {
    with_keys(CaseConfig{}, pin);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

CaseConfig pinned(const OperatorDescription& op, const CaseConfig& drawn, std::string_view pin) {
  return pin.empty() ? drawn : with_keys(op.fit_case(drawn), pin);
}

PlannedCase plan_suite_case(const SuiteInfo& suite, const Backend& b, const SuiteDraws& draws, int64_t i) {
  if (!suite.drawn) throw std::logic_error(fmt::format("suite {} draws no cases", suite.name));
  PlannedCase p;
  const Envelope region = narrowed(b.envelope(), draws.restriction);
  const uint64_t seed = draws.seed + suite.seed_offset;
  const bool contract = suite.name == "kernel-contract";
  const bool draws_rollouts = suite.name == "kernel" || suite.name == "kernel-truth";  // what --model shapes
  CaseConfig drawn;
  try {
    drawn = draw_backend_case(b.op(), seed, static_cast<uint64_t>(i),
                              limits::check_cases(contract ? kErrorInputWorkBudget : draws.work_budget), region,
                              draws.model && draws_rollouts ? &*draws.model : nullptr);
  } catch (const std::invalid_argument& e) {
    p.problem = std::string(e.what()) + ": " + region.describe();
    return p;
  }
  if (!draws.pin.empty()) {
    drawn = pinned(b.op(), drawn, draws.pin);  // the pin was checked where it was given (pin_error)
    if (const std::string why = region.excludes(b.op().fit_case(drawn)); !why.empty()) {
      p.problem = fmt::format("the pin '{}' takes the case out of the region ({}): {}", draws.pin, why, region.describe());
      return p;
    }
  }
  const OperatorDescription& op = b.op();
  const auto outside = [&](int64_t n) {
    // Only the ways out that stay out once the operator fits the call: an operator whose fit
    // lifts a head dim (to a minimum its contract requires) can carry K = k_min / 2 back inside
    // the envelope, where a correct backend computes it.
    std::vector<CaseConfig> calls;
    for (const CaseConfig& c : b.envelope().just_outside(drawn)) {
      CaseConfig fitted = op.fit_case(c);
      if (!b.envelope().excludes(fitted).empty()) calls.push_back(std::move(fitted));
    }
    if (calls.empty()) return false;
    p.kind = PlannedCase::Kind::OutsideEnvelope;
    p.config = calls[static_cast<std::size_t>(n) % calls.size()];
    p.call = "outside the envelope: " + b.envelope().excludes(p.config);
    return true;
  };
  p.drawn = drawn;
  p.config = op.fit_case(drawn);
  if (suite.name == "kernel") {
    // A backend that computes a call it declares it refuses dies here too, early.
    if (i % kOutsideEvery == kOutsideEvery - 2 && outside(i / kOutsideEvery)) return p;
    p.kind = PlannedCase::Kind::Rollout;
    const bool claimed = b.envelope().invalid_rows != InvalidRows::None;
    if (i % kInvalidRowEvery == kInvalidRowEvery - 1 && (claimed || draws.probe_invalid_rows)) {
      p.kind = claimed ? PlannedCase::Kind::InvalidRow : PlannedCase::Kind::InvalidRowProbe;
      p.call = invalid_row(op, drawn, i / kInvalidRowEvery).what;
      if (!claimed) p.call = "probe: " + p.call;
    }
  } else if (suite.name == "kernel-truth") {
    p.kind = PlannedCase::Kind::Rollout;
  } else if (suite.name == "envelope") {
    if (!outside(i)) {
      p.kind = PlannedCase::Kind::NothingToTest;
      p.problem = "the envelope is the whole contract: nothing lies outside it";
    }
  } else if (contract) {
    const std::vector<std::size_t> documented = documented_inputs(op);
    const std::optional<CaseConfig> base = error_input_base(b, drawn);
    if (documented.empty()) {
      p.kind = PlannedCase::Kind::NothingToTest;
      p.problem = "the operator has no documented error input (its checks are all harness extensions)";
      return p;
    }
    if (!base) {
      p.problem = "no case with B, HV, K and V >= 2 fits the envelope: " + b.envelope().describe(b.op());
      return p;
    }
    p.kind = PlannedCase::Kind::ErrorInput;
    p.config = *base;
    p.call = "error input " + op.error_inputs()[documented[static_cast<std::size_t>(i) % documented.size()]].label;
  } else {
    throw std::logic_error(fmt::format("suite {} has no runner", suite.name));
  }
  return p;
}

CaseReport run_suite_case(const SuiteInfo& suite, Backend& b, const SuiteDraws& draws, int64_t i) {
  const PlannedCase p = plan_suite_case(suite, b, draws, i);
  using Kind = PlannedCase::Kind;
  switch (p.kind) {
    case Kind::NoCase: {
      CaseReport r = ran_nothing(p, b, "reference");
      r.what = fmt::format("case {} of seed {}: {}", i, draws.seed + suite.seed_offset, p.problem);
      r.failure = p.problem;
      return r;
    }
    case Kind::NothingToTest:
      return ran_nothing(p, b, "reference");
    case Kind::Rollout:
      return suite.name == "kernel-truth" ? run_vs_truth(p.drawn, b) : run_vs_reference(p.drawn, b);
    case Kind::InvalidRow: {
      CaseReport r = run_vs_reference(p.drawn, b, invalid_row(b.op(), p.drawn, i / kInvalidRowEvery).mutate);
      r.note = "this case: " + p.call;
      return r;
    }
    case Kind::InvalidRowProbe: {
      // Nothing is claimed: what the step did is the case's note, and the case passes.
      CaseReport r = run_vs_reference(p.drawn, b, invalid_row(b.op(), p.drawn, i / kInvalidRowEvery).mutate);
      r.note = fmt::format("{}: {}", p.call, r.failure.empty() ? r.note : r.failure);
      r.failure.clear();
      return r;
    }
    case Kind::OutsideEnvelope:
      return outside_case(p, b);
    case Kind::ErrorInput:
      return error_input_case(p, b);
  }
  throw std::logic_error("unreachable");
}

int64_t defaults::default_case_count(std::string_view suite, const OperatorDescription& op, int64_t base) {
  if (suite != "kernel-contract") return base;
  return std::max(base, static_cast<int64_t>(documented_inputs(op).size()));
}

std::string planned_line(const PlannedCase& p, const OperatorDescription& op) {
  const std::string line = config_line(p.config, op);
  return p.call.empty() ? line : line + " | " + p.call;
}

}  // namespace kda::engine
