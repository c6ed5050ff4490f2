// kda_check_plugin: the engine's judgement of a plugin (engine/) as an implementation of the
// operator it names (its `op`: that operator's cases, reference, truth and error inputs),
// suite by suite:
//   rollout:  drawn cases inside the plugin's envelope, step by step against the CPU
//             reference within the bounds of the plugin's rounding profile (outputs,
//             checkpoints, ring records, and no byte written outside the step's footprint:
//             engine::run_vs_reference);
//   truth:    the same draws as whole rollouts against the float64 plain recurrence
//             (engine::run_vs_truth);
//   contract: each documented check's error input (the operator's, engine/error_inputs.hpp)
//             on a drawn valid case: the plugin must refuse it with the catalog's exact
//             message and write nothing;
//   envelope: a valid call just outside the plugin's envelope must be refused, nothing
//             written (engine::Envelope::just_outside, engine::refusal_problem).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "capi/status.hpp"
#include "capi/work_budget.hpp"
#include "cases/case_tensors.hpp"
#include "contract/validate.hpp"
#include "engine/backend_cases.hpp"
#include "engine/fatal_signal.hpp"
#include "engine/plugin_backend.hpp"
#include "engine/refusal.hpp"
#include "engine/restriction.hpp"
#include "engine/case_breaking.hpp"
#include "engine/replayssm_sample_space.hpp"
#include "engine/row_plan.hpp"
#include "engine/run_case.hpp"

namespace kda::capi {
namespace {

constexpr const char* kSuites = "rollout,truth,contract,envelope";

struct Outcome {
  std::string suite;
  int64_t index = 0;
  bool pass = true;
  std::string replay, detail;
};

std::string describe(const engine::CaseReport& r) {
  // One line of counts, then one per quantity compared and the failure, so that a failure
  // reads as torch.testing.assert_close's does.
  std::string s = fmt::format("vs {}: {}, {} flushes, {} appends", r.against, r.tokens_run(), r.flushes, r.appends);
  const std::pair<const char*, const reference::Comparison*> parts[] = {{"out", &r.out},
                                                                         {"initial_state", &r.state},
                                                                         {"d_cache", &r.d_ring},
                                                                         {"k_cache", &r.k_ring},
                                                                         {"g_cache", &r.g_ring}};
  for (const auto& [name, c] : parts)
    if (c->blocks > 0) s += fmt::format("\n  {}: {}", name, c->describe());
  if (!r.failure.empty()) s += "\n  FAILURE: " + r.failure;
  return s;
}

Outcome judged(const std::string& suite, int64_t index, const CaseConfig& given, engine::Backend& b) {
  const CaseConfig c = b.op().fit_case(given);  // the case the drivers run, so the replay line is it
  const engine::CaseReport r = suite == "truth" ? engine::run_vs_truth(c, b) : engine::run_vs_reference(c, b);
  return {suite, index, r.pass(), to_string(c), describe(r)};
}

// Case `index` of `seed` in the sample space of `kda-harness check`'s backend suites, inside
// the backend's envelope narrowed by the caller's restriction (engine/backend_cases.hpp).
CaseConfig drawn(const engine::Backend& b, const engine::Envelope& restriction, uint64_t seed, int64_t index,
                 double work_budget) {
  return engine::draw_backend_case(seed, static_cast<uint64_t>(index), engine::limits::check_cases(work_budget),
                                   engine::narrowed(b.envelope(), restriction));
}

CaseConfig inside(const engine::Backend& b, const CaseConfig& drawn) {
  const auto c = b.envelope().fit(drawn);
  if (!c) throw std::invalid_argument("no case fits the plugin's envelope: " + b.envelope().describe());
  return *c;
}

// What the error inputs need of the valid case: B, HV, K and V of at least 2 (so that none
// declines), one token.
constexpr int64_t kErrorInputMinSize = 2;

// The operator's error inputs of the documented checks that raise their own id on host
// tensors: not the device checks (V9, R9, R10), not P0 and R4-short (they raise V1's and R5's
// messages), not the harness's extensions.
std::vector<std::size_t> documented_inputs(const engine::OperatorDescription& op) {
  std::vector<std::size_t> out;
  const auto& inputs = op.error_inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& l = inputs[i].label;
    if (l.rfind("X-", 0) == 0 || l == "P0" || l == "R4-short" || l == "V9" || l == "R9" || l == "R10") continue;
    out.push_back(i);
  }
  return out;
}

// A valid case of the backend's operator for the error inputs: drawn, inside the envelope,
// with B, HV, K, V >= 2.
CaseConfig error_input_base(const engine::Backend& b, const engine::Envelope& restriction, uint64_t seed,
                            int64_t index) {
  CaseConfig c = drawn(b, restriction, seed ^ 0xE77u, index, 2e4);
  c.B = std::max(c.B, kErrorInputMinSize);
  c.slots = std::max(c.slots, c.B);
  if (c.HV < kErrorInputMinSize) c.HV = c.H * kErrorInputMinSize;
  c.K = std::max(c.K, kErrorInputMinSize);
  c.V = std::max(c.V, kErrorInputMinSize);
  c.steps = 1;
  return b.op().fit_case(inside(b, c));
}

Outcome contract_case(engine::Backend& b, const engine::Envelope& restriction, uint64_t seed, int64_t index) {
  const engine::OperatorDescription& op = b.op();
  const std::vector<std::size_t> documented = documented_inputs(op);
  const std::size_t input = documented[static_cast<std::size_t>(index) % documented.size()];
  const std::string& label = op.error_inputs()[input].label;
  const CaseConfig c = error_input_base(b, restriction, seed, index);
  Outcome o{"contract", index, false, fmt::format("{} | error input {}", to_string(c), label), ""};
  CaseTensors t = materialize(c);
  const std::optional<engine::Expected> broken = engine::break_case(t, {input, 0}, op.error_inputs());
  if (!broken) throw std::logic_error(fmt::format("error input {} does not apply to {}", label, to_string(c)));
  try {
    op.validate(op.bind(t.args()), Backend::Any);
    throw std::logic_error(fmt::format("error input {} did not make validate() raise", label));
  } catch (const ContractError& e) {
    if (e.id() != broken->id || e.what() != broken->message)
      throw std::logic_error(
          fmt::format("error input {} made validate() raise {} instead of {}", label, e.id(), broken->id));
  }
  const std::string& expected = broken->message;
  const engine::WrittenBytes before = engine::snapshot_written(t.args());
  std::string raised;
  bool refused = true;
  try {
    b.step(op.bind(t.args()));
    refused = false;
  } catch (const ContractError& e) {
    raised = e.what();
  } catch (const std::exception& e) {  // a refusal whose text is no catalog message
    raised = e.what();
  }
  if (!refused) o.detail = fmt::format("accepted an invalid call; expected ValueError: {}", expected);
  else if (raised != expected) o.detail = fmt::format("raised '{}'; expected ValueError: {}", raised, expected);
  else if (const std::string changed = engine::any_change(before, t.args()); !changed.empty())
    o.detail = fmt::format("refused the call ({}) but changed {}", label, changed);
  else o.pass = true, o.detail = fmt::format("refused with {}: {}", label, expected);
  return o;
}

Outcome envelope_case(engine::Backend& b, const engine::Envelope& restriction, uint64_t seed, int64_t index) {
  const CaseConfig c = b.op().fit_case(drawn(b, restriction, seed ^ 0xE17u, index, 2e4));
  const std::vector<CaseConfig> outside = b.envelope().just_outside(c);
  if (outside.empty()) return {"envelope", index, true, to_string(c), "the envelope is the whole contract: nothing lies outside it"};
  CaseConfig x = b.op().fit_case(outside[static_cast<std::size_t>(index) % outside.size()]);
  x.steps = 1;
  const std::string why = b.envelope().excludes(x);
  Outcome o{"envelope", index, true, fmt::format("{} | outside the envelope: {}", to_string(x), why), ""};
  CaseTensors t = materialize(x);
  const std::string problem = engine::refusal_problem(b, t.args());
  o.pass = problem.empty();
  o.detail = problem.empty() ? "refused (" + why + "), nothing written" : problem + " (" + why + ")";
  return o;
}

std::vector<std::string> split_suites(const char* s) {
  std::vector<std::string> out;
  std::stringstream in(s == nullptr || *s == '\0' ? kSuites : s);
  for (std::string item; std::getline(in, item, ',');) {
    if ((std::string(",") + kSuites + ",").find("," + item + ",") == std::string::npos)
      throw std::invalid_argument(fmt::format("unknown suite '{}' (known: {})", item, kSuites));
    out.push_back(item);
  }
  return out;
}

nlohmann::json entry(const Outcome& o) {
  return {{"suite", o.suite}, {"index", o.index}, {"pass", o.pass}, {"replay", o.replay}, {"detail", o.detail}};
}

std::string run_check(const kda_plugin& plugin, const kda_check_options& opt) {
  if (opt.first < 0 || opt.count < 0) throw std::invalid_argument("first and count must be >= 0");
  kda_plugin described = plugin;
  if (opt.profile >= 0) described.profile = opt.profile;
  engine::install_fatal_signal_report();
  const std::unique_ptr<engine::Backend> backend =
      engine::plugin_backend(described, plugin.name != nullptr ? plugin.name : "plugin");
  const double budget = opt.work_budget > 0 ? opt.work_budget : kDefaultWorkBudget;
  const engine::Envelope restriction =
      opt.restriction != nullptr ? engine::Envelope::from_c(*opt.restriction, backend->op()) : engine::Envelope{};
  nlohmann::json cases = nlohmann::json::array();
  if (opt.config != nullptr) {  // one case from its line; what follows " | " names a call, not the case
    const std::string line(opt.config);
    const CaseConfig c = parse_case_config(line.substr(0, line.find(" | ")));
    if (!is_valid_config(c)) throw std::invalid_argument("not a valid case config: " + line);
    cases.push_back(entry(judged("rollout", -1, c, *backend)));
  }
  for (const std::string& suite : opt.config != nullptr ? std::vector<std::string>{} : split_suites(opt.suites)) {
    for (int64_t i = opt.first; i < opt.first + opt.count; ++i) {
      Outcome o{suite, i, false, fmt::format("suite {} case {} seed {}", suite, i, opt.seed), ""};
      try {
        const bool rollout = suite == "rollout" || suite == "truth";
        const engine::CaseInFlight flight(
            rollout ? to_string(backend->op().fit_case(drawn(*backend, restriction, opt.seed, i, budget))) : o.replay);
        if (rollout)
          o = judged(suite, i, drawn(*backend, restriction, opt.seed, i, budget), *backend);
        else if (suite == "contract") o = contract_case(*backend, restriction, opt.seed, i);
        else o = envelope_case(*backend, restriction, opt.seed, i);
      } catch (const std::exception& e) {
        o.pass = false;
        o.detail = std::string("harness error: ") + e.what();
      }
      cases.push_back(entry(o));
    }
  }
  return nlohmann::json{{"plugin", backend->name()}, {"profile", described.profile}, {"cases", cases}}.dump();
}

}  // namespace
}  // namespace kda::capi

extern "C" {

int32_t kda_check_plugin(const kda_plugin* plugin, const kda_check_options* options, char* report, size_t capacity,
                         size_t* needed, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (plugin == nullptr || options == nullptr) throw std::invalid_argument("plugin and options must not be NULL");
    const std::string text = kda::capi::run_check(*plugin, *options);
    if (needed != nullptr) *needed = text.size() + 1;
    if (report == nullptr || capacity <= text.size()) return KDA_BUFFER_TOO_SMALL;
    std::memcpy(report, text.c_str(), text.size() + 1);
    return KDA_OK;
  });
}

const char* kda_check_suites(void) { return kda::capi::kSuites; }

int32_t kda_plugin_check(const kda_plugin* plugin, const char* what, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    try {
      kda::engine::check_plugin_description(plugin, what != nullptr ? what : "plugin");
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());
    }
    return KDA_OK;
  });
}

}  // extern "C"
