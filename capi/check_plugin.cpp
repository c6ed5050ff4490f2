// kda_check_plugin: the engine's judgement of a plugin (engine/) as an implementation of the
// operator it names (its `op`: that operator's cases, reference, truth and error inputs), by
// the drawn backend suites of the harness's one table (engine/driver/suites.hpp: kernel,
// kernel-truth, envelope, kernel-contract), each case run by the engine's suite runner, as
// `kda-harness check --backend plugin:PATH --suites S --seed N --gpu-work-budget B` runs case i
// of S. The
// replay of a case is its config line, then " | " and what the case does to the call (an
// error input, a call outside the envelope, an invalid row), as engine::planned_line says.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "capi/status.hpp"
#include "capi/work_budget.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/reports/failure_cause.hpp"
#include "engine/driver/fatal_signal.hpp"
#include "engine/backends/plugin_backend.hpp"
#include "engine/description/restriction.hpp"
#include "engine/driver/case_line.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/driver/defaults.hpp"
#include "engine/driver/shrink.hpp"
#include "engine/driver/step_timing_json.hpp"
#include "engine/driver/suites.hpp"

namespace kda::capi {
namespace {

struct Outcome {
  std::string suite;
  int64_t index = 0;
  bool pass = true;
  std::string replay, detail;
  bool skipped = false;  // nothing to test (an envelope with nothing outside it): not a pass
  std::string cause;     // a failure's cause (engine/reports/failure_cause.hpp): reports group by it
};

std::string describe(const engine::CaseReport& r) {
  // A case that ran no rollout (engine/driver/suites.hpp: it says what it was): its failure, or what it checked.
  if (!r.what.empty() || !r.outside_envelope.empty())
    return r.failure.empty() ? (r.note.empty() ? r.what : r.note) : r.failure;
  // One line of counts, then one per quantity compared and the failure, so that a failure
  // reads as torch.testing.assert_close's does.
  std::string s = fmt::format("vs {}: {}{}", r.against, r.tokens_run(), r.ring_counts());
  const std::pair<const char*, const reference::Comparison*> parts[] = {{"out", &r.out},
                                                                         {"initial_state", &r.state},
                                                                         {"d_cache", &r.d_ring},
                                                                         {"k_cache", &r.k_ring},
                                                                         {"g_cache", &r.g_ring}};
  for (const auto& [name, c] : parts)
    if (c->blocks > 0) s += fmt::format("\n  {}: {}", name, c->describe());
  if (!r.note.empty()) s += "\n  " + r.note;
  if (!r.failure.empty()) s += "\n  FAILURE: " + r.failure;
  return s;
}

std::vector<const engine::SuiteInfo*> split_suites(const char* s) {
  std::vector<const engine::SuiteInfo*> out;
  std::stringstream in(s == nullptr || *s == '\0' ? engine::default_drawn_suite_names() : s);
  for (std::string item; std::getline(in, item, ',');) {
    if (const std::string problem = engine::backend_suite_problem(item); !problem.empty())
      throw std::invalid_argument(problem);
    out.push_back(engine::find_suite(item));
  }
  return out;
}

// A case's detail holds what the backend said, which may be megabytes: its first kMaxDetail
// bytes are kept (cut at a UTF-8 character boundary), so that the report of one case fits the
// buffer a front end gives (the Python package's: 1 MiB) and never has to be asked for twice.
constexpr std::size_t kMaxDetail = 64 * 1024;

std::string bounded_detail(std::string detail) {
  if (detail.size() <= kMaxDetail) return detail;
  std::size_t cut = kMaxDetail;
  while (cut > 0 && (static_cast<unsigned char>(detail[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  const std::size_t left_out = detail.size() - cut;
  detail.resize(cut);
  return detail + fmt::format(" ... ({} more bytes left out)", left_out);
}

nlohmann::json entry(const Outcome& o) {
  return {{"suite", o.suite},   {"index", o.index},
          {"pass", o.pass},     {"replay", o.replay},
          {"detail", bounded_detail(o.detail)}, {"skipped", o.skipped}, {"cause", o.cause}};
}

// The plugin's backend as the options describe it (their profile, or the plugin's own).
std::unique_ptr<engine::Backend> backend_of(const kda_plugin& plugin, const kda_check_options& opt) {
  engine::check_plugin_description(&plugin, plugin.name != nullptr ? plugin.name : "plugin");
  kda_plugin described = engine::read_plugin_description(plugin);  // a version 1 description is shorter
  if (opt.profile >= 0) described.profile = opt.profile;
  return engine::plugin_backend(described, plugin.name != nullptr ? plugin.name : "plugin");
}

std::string pin_of(const kda_check_options& opt) {
  const std::string pin = opt.pin != nullptr ? opt.pin : "";
  if (!pin.empty())
    if (const std::string why = engine::pin_error(pin); !why.empty()) throw std::invalid_argument("pin: " + why);
  return pin;
}

engine::SuiteDraws draws_of(const engine::Backend& backend, const kda_check_options& opt) {
  return {opt.seed, opt.work_budget > 0 ? opt.work_budget : kDefaultWorkBudget,
          opt.restriction != nullptr ? engine::Envelope::from_c(*opt.restriction, backend.op()) : engine::Envelope{},
          opt.probe_invalid_rows != 0,
          opt.model != nullptr && *opt.model != '\0'
              ? std::optional(engine::parse_model(opt.model, backend.op().fit_case(CaseConfig{}).gate_per_head))
              : std::nullopt,
          pin_of(opt)};
}

// The replay line of case `first` of the one suite the options name, without running it.
std::string case_line(const kda_plugin& plugin, const kda_check_options& opt) {
  const std::vector<const engine::SuiteInfo*> suites = split_suites(opt.suites);
  if (suites.size() != 1 || opt.first < 0) throw std::invalid_argument("name one suite and a case first >= 0");
  const std::unique_ptr<engine::Backend> backend = backend_of(plugin, opt);
  return engine::planned_line(engine::plan_suite_case(*suites[0], *backend, draws_of(*backend, opt), opt.first), backend->op());
}

// Per operator, each drawn suite's default count for a front end (defaults::default_case_count).
nlohmann::ordered_json suite_cases() {
  nlohmann::ordered_json j;
  for (const engine::OperatorDescription* op : engine::operators())
    for (const engine::SuiteInfo& s : engine::suite_table())
      if (s.drawn)
        j[std::string(op->name)][std::string(s.name)] =
            engine::defaults::default_case_count(s.name, *op, engine::defaults::kFrontEndCases);
  return j;
}

// The plugin's step timed per shape class (engine/driver/step_timing.hpp), as JSON.
std::string time_plugin(const kda_plugin& plugin) {
  kda_check_options none{};
  none.profile = -1;
  const std::unique_ptr<engine::Backend> backend = backend_of(plugin, none);
  return engine::timing_json(engine::time_backend(*backend), backend->op()).dump(-1, ' ', false,
                                                                                  nlohmann::json::error_handler_t::replace);
}

// A replay line reruns a case a suite drew and ran (a production batch's float64 reference may
// need gigabytes): held to no budget, which guards the command line's hand-written lines.
constexpr engine::CaseBudget kReplayBudget{.memory_mib = std::numeric_limits<double>::infinity(),
                                           .work = std::numeric_limits<double>::infinity()};

// The failing case of options.config (as run_check's config case runs it) shrunk on the plugin
// (engine/driver/shrink.hpp): the smallest config line that still fails of its cause, "" when the case
// passes or nothing smaller fails.
std::string shrink_plugin_case(const kda_plugin& plugin, const kda_check_options& opt) {
  if (opt.config == nullptr) throw std::invalid_argument("options->config must name the failing case's config line");
  const std::unique_ptr<engine::Backend> backend = backend_of(plugin, opt);
  const std::string line(opt.config);
  if (line.find(" | ") != std::string::npos) return "";  // an error input, a call outside the envelope: no rollout
  const engine::OperatorCase fitted = engine::read_case_line(line, {&backend->op(), "the plugin"}, kReplayBudget);
  const bool truth = opt.suites != nullptr && std::string_view(opt.suites) == "kernel-truth";
  const engine::CaseReport r = truth ? engine::run_vs_truth(fitted, *backend) : engine::run_vs_reference(fitted, *backend);
  if (r.pass()) return "";
  const std::optional<engine::Shrunk> s = engine::shrink_failure(r, *backend);
  return s ? engine::config_line(s->config, backend->op()) : "";
}

// Copies `text` into the caller's buffer (the C library's one way of returning a string).
int32_t give(const std::string& text, char* buffer, size_t capacity, size_t* needed) {
  if (needed != nullptr) *needed = text.size() + 1;
  if (buffer == nullptr || capacity <= text.size()) return KDA_BUFFER_TOO_SMALL;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return KDA_OK;
}

std::string run_check(const kda_plugin& plugin, const kda_check_options& opt) {
  if (opt.first < 0 || opt.count < 0) throw std::invalid_argument("first and count must be >= 0");
  engine::install_fatal_signal_report();
  const std::unique_ptr<engine::Backend> backend = backend_of(plugin, opt);
  const engine::SuiteDraws draws = draws_of(*backend, opt);
  nlohmann::json cases = nlohmann::json::array();
  if (opt.config != nullptr) {  // one case from its line; what follows " | " names a call, not the case
    const std::string line(opt.config);
    // the case the driver runs, so that the replay line is it
    const engine::OperatorCase fitted =
        engine::read_case_line(line.substr(0, line.find(" | ")), {&backend->op(), "the plugin"}, kReplayBudget);
    // Against the comparison of the suite that drew it: kernel-truth's float64 recurrence, else the reference.
    const bool truth = opt.suites != nullptr && std::string_view(opt.suites) == "kernel-truth";
    const engine::CaseReport r = truth ? engine::run_vs_truth(fitted, *backend) : engine::run_vs_reference(fitted, *backend);
    Outcome o{.suite = truth ? "kernel-truth" : "kernel",
              .index = -1,
              .pass = r.pass(),
              .replay = engine::config_line(fitted.config, *fitted.op),
              .detail = describe(r),
              .skipped = false,
              .cause = r.pass() ? "" : engine::failure_cause(r)};  // as the suites' cases carry it
    cases.push_back(entry(o));
  }
  for (const engine::SuiteInfo* suite : opt.config != nullptr ? std::vector<const engine::SuiteInfo*>{}
                                                              : split_suites(opt.suites)) {
    for (int64_t i = opt.first; i < opt.first + opt.count; ++i) {
      Outcome o;
      o.suite = std::string(suite->name);
      o.index = i;
      o.pass = false;
      o.replay = fmt::format("suite {} case {} seed {}", suite->name, i, opt.seed);
      try {
        const engine::PlannedCase planned = engine::plan_suite_case(*suite, *backend, draws, i);
        o.replay = engine::planned_line(planned, backend->op());
        o.skipped = planned.kind == engine::PlannedCase::Kind::NothingToTest;
        const engine::CaseInFlight flight(o.replay);
        const engine::CaseReport r = engine::run_suite_case(*suite, *backend, draws, i);
        o.pass = r.pass();
        o.detail = describe(r);
        o.cause = engine::failure_cause(r);
      } catch (const std::exception& e) {
        o.pass = false;
        o.detail = std::string("harness error: ") + e.what();
        o.cause = "harness error";
      }
      cases.push_back(entry(o));
    }
  }
  return nlohmann::json{{"plugin", backend->name()},
                        {"profile", opt.profile >= 0 ? opt.profile : plugin.profile},
                        {"invalid_rows", engine::invalid_rows_claim(backend->envelope().invalid_rows, draws.probe_invalid_rows, backend->op())},
                        {"cases", cases}}
      .dump();
}

}  // namespace
}  // namespace kda::capi

extern "C" {

int32_t kda_check_plugin(const kda_plugin* plugin, const kda_check_options* options, char* report, size_t capacity,
                         size_t* needed, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (plugin == nullptr || options == nullptr) throw std::invalid_argument("plugin and options must not be NULL");
    return kda::capi::give(kda::capi::run_check(*plugin, *options), report, capacity, needed);
  });
}

int32_t kda_check_case_line(const kda_plugin* plugin, const kda_check_options* options, char* line, size_t capacity,
                            size_t* needed, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (plugin == nullptr || options == nullptr) throw std::invalid_argument("plugin and options must not be NULL");
    return kda::capi::give(kda::capi::case_line(*plugin, *options), line, capacity, needed);
  });
}

int32_t kda_time_plugin(const kda_plugin* plugin, char* report, size_t capacity, size_t* needed, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (plugin == nullptr) throw std::invalid_argument("plugin must not be NULL");
    return kda::capi::give(kda::capi::time_plugin(*plugin), report, capacity, needed);
  });
}

int32_t kda_shrink_case(const kda_plugin* plugin, const kda_check_options* options, char* line, size_t capacity,
                        size_t* needed, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (plugin == nullptr || options == nullptr) throw std::invalid_argument("plugin and options must not be NULL");
    return kda::capi::give(kda::capi::shrink_plugin_case(*plugin, *options), line, capacity, needed);
  });
}

const char* kda_check_suites(void) { return kda::engine::drawn_suite_names().c_str(); }

const char* kda_defaults(void) {
  namespace d = kda::engine::defaults;
  static const std::string text = [] {
    std::string cli_suites;
    for (const kda::engine::SuiteInfo& s : kda::engine::suite_table())
      if (s.judges_backend && s.in_default_check) cli_suites += (cli_suites.empty() ? "" : ",") + std::string(s.name);
    return nlohmann::ordered_json{{"op", std::string(kda::engine::default_operator().name)},
                                  {"seed", d::kSeed},
                                  {"profile", std::string(d::kProfile)},
                                  {"suites", kda::engine::default_drawn_suite_names()},
                                  {"cli_suites", cli_suites},
                                  {"cases", d::kFrontEndCases},
                                  {"suite_cases", kda::capi::suite_cases()},
                                  {"work_budget", d::kLibraryWorkBudget},
                                  {"cli_work_budget", d::kCliWorkBudget}}
        .dump();
  }();
  return text.c_str();
}

int32_t kda_check_suites_valid(const char* suites, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    kda::capi::split_suites(suites);
    return KDA_OK;
  });
}

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
