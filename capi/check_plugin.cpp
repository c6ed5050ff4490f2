// kda_check_plugin: the suites run against a host plugin (the Python package wraps any
// callable as one).
//   rollout:  drawn cases (inside the plugin's envelope) played as rollouts through the
//             plugin's step, compared with the float64 recurrence at every token and flush
//             within the bound of the plugin's rounding profile, each step's writes held to
//             its footprint (footprint.hpp);
//   contract: each documented error input (error_inputs.hpp) on a drawn valid case: the
//             plugin must refuse it with validate()'s exact message and write nothing;
//   envelope: a valid call just outside the plugin's envelope (envelope_fit.hpp): the plugin
//             must refuse it (any message) and write nothing.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "capi/call_args.hpp"
#include "capi/envelope_fit.hpp"
#include "capi/error_inputs.hpp"
#include "capi/footprint.hpp"
#include "capi/status.hpp"
#include "cases/case_tensors.hpp"
#include "contract/validate.hpp"
#include "reference/rollout.hpp"
#include "tools/case_draw.hpp"

namespace kda::capi {
namespace {

constexpr const char* kSuites = "rollout,contract,envelope";

struct Outcome {
  std::string suite;
  int64_t index = 0;
  bool pass = true;
  std::string replay, detail;
};

// A plugin's refusal of a call, with its last_error text.
struct Refused {
  std::string message;
};
// A write outside the step's footprint.
struct StrayWrite {
  std::string message;
};

std::string last_error(const kda_plugin& p) {
  const char* m = p.last_error ? p.last_error(p.state) : nullptr;
  return m ? m : "";
}

// Runs the plugin's step on a call; a refusal is returned as its message.
std::optional<std::string> call_plugin(const kda_plugin& p, const StepArgs& args) {
  const CallView view(args);
  if (p.step(p.state, view.get()) == 0) return std::nullopt;
  return last_error(p);
}

Outcome rollout_case(const kda_plugin& p, const CaseConfig& c, int32_t profile, int64_t index) {
  Outcome o{"rollout", index, true, to_string(c), ""};
  int64_t token = 0;
  const auto step = [&](const StepArgs& a) {
    const FootprintSnapshot before(a);
    if (auto refused = call_plugin(p, a)) throw Refused{*refused};
    if (auto stray = before.stray_write())
      throw StrayWrite{fmt::format("token {}: wrote {}, outside the step's footprint", token, *stray)};
    ++token;
  };
  try {
    const auto bounds = reference::rollout_bounds(c, profile == KDA_PROFILE_TRITON);
    const reference::RolloutReport r = reference::run_rollout(c, step, bounds);
    o.pass = r.pass();
    o.detail = fmt::format("{} tokens, {} flushes | outputs: {} | states: {}", r.tokens, r.flushes,
                           r.outputs.describe(), r.states.describe());
  } catch (const Refused& e) {
    o.pass = false;
    o.detail = "refused a valid call: " + e.message;
  } catch (const StrayWrite& e) {
    o.pass = false;
    o.detail = e.message;
  } catch (const std::exception& e) {
    o.pass = false;
    o.detail = std::string("harness error: ") + e.what();
  }
  return o;
}

// A valid case for the error inputs: drawn, inside the envelope, with B, HV, K, V >= 2.
CaseConfig error_input_base(const kda_envelope& env, uint64_t seed, int64_t index) {
  CaseConfig c = fit_to_envelope(cli::draw_case(seed ^ 0xE77u, static_cast<uint64_t>(index), 2e4), env);
  c.B = std::max(c.B, kErrorInputMinSize);
  c.slots = std::max(c.slots, c.B);
  if (c.HV < kErrorInputMinSize) c.HV = c.H * kErrorInputMinSize;
  c.K = std::max(c.K, kErrorInputMinSize);
  c.V = std::max(c.V, kErrorInputMinSize);
  c.steps = 1;
  return fit_to_envelope(c, env);
}

std::vector<std::vector<std::byte>> written_bytes(CaseTensors& t) {
  std::vector<std::vector<std::byte>> v;
  for (HostTensor* x : {&t.initial_state, &t.d_cache, &t.k_cache, &t.g_cache, &t.out}) v.push_back(x->storage());
  return v;
}

void judge_error_input(const kda_plugin& p, const ErrorInput& input, const CaseConfig& c, Outcome& o);

Outcome contract_case(const kda_plugin& p, const kda_envelope& env, uint64_t seed, int64_t index) {
  const auto& inputs = error_inputs();
  const ErrorInput& input = inputs[static_cast<std::size_t>(index) % inputs.size()];
  const CaseConfig c = error_input_base(env, seed, index);
  Outcome o{"contract", index, true, fmt::format("{} | error input {}", to_string(c), input.id), ""};
  try {
    judge_error_input(p, input, c, o);
  } catch (const std::exception& e) {
    o.pass = false;
    o.detail = std::string("harness error: ") + e.what();
  }
  return o;
}

void judge_error_input(const kda_plugin& p, const ErrorInput& input, const CaseConfig& c, Outcome& o) {
  CaseTensors t = materialize(c);
  input.apply(t, Dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots});
  std::string expected;
  try {
    validate(t.args());
    throw std::logic_error(fmt::format("error input {} did not make validate() raise", input.id));
  } catch (const ContractError& e) {
    if (e.id() != input.id)
      throw std::logic_error(fmt::format("error input {} made validate() raise {} instead", input.id, e.id()));
    expected = e.what();
  }
  const auto before = written_bytes(t);
  const auto refused = call_plugin(p, t.args());
  if (!refused) {
    o.pass = false;
    o.detail = fmt::format("accepted an invalid call; expected ValueError: {}", expected);
  } else if (*refused != expected) {
    o.pass = false;
    o.detail = fmt::format("raised '{}'; expected ValueError: {}", *refused, expected);
  } else if (written_bytes(t) != before) {
    o.pass = false;
    o.detail = fmt::format("refused the call ({}) but wrote to its outputs", input.id);
  } else {
    o.detail = fmt::format("refused with {}: {}", input.id, expected);
  }
}

Outcome envelope_case(const kda_plugin& p, const kda_envelope& env, uint64_t seed, int64_t index) {
  const CaseConfig inside = fit_to_envelope(cli::draw_case(seed ^ 0xE17u, static_cast<uint64_t>(index), 2e4), env);
  const auto outside = outside_envelope(inside, env, static_cast<uint64_t>(index));
  if (!outside) return {"envelope", index, true, to_string(inside), "the envelope admits every call of the sample space"};
  Outcome o{"envelope", index, true, fmt::format("{} | outside the envelope: {}", to_string(outside->config), outside->what), ""};
  CaseTensors t = materialize(outside->config);
  const auto before = written_bytes(t);
  const auto refused = call_plugin(p, t.args());
  if (!refused) {
    o.pass = false;
    o.detail = fmt::format("accepted a call outside its envelope ({})", outside->what);
  } else if (written_bytes(t) != before) {
    o.pass = false;
    o.detail = fmt::format("refused the call outside its envelope ({}) but wrote to its outputs", outside->what);
  } else {
    o.detail = fmt::format("refused {}: {}", outside->what, *refused);
  }
  return o;
}

std::vector<std::string> split_suites(const char* s) {
  std::vector<std::string> out;
  std::stringstream in(s == nullptr || *s == '\0' ? kSuites : s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item != "rollout" && item != "contract" && item != "envelope")
      throw std::invalid_argument(fmt::format("unknown suite '{}' (known: {})", item, kSuites));
    out.push_back(item);
  }
  return out;
}

std::string run_check(const kda_plugin& p, const kda_check_options& opt) {
  if (p.abi_version != KDA_PLUGIN_ABI_VERSION)
    throw std::invalid_argument(fmt::format("plugin ABI version {} (this library: {})", p.abi_version, KDA_PLUGIN_ABI_VERSION));
  if (p.step == nullptr) throw std::invalid_argument("plugin has no step function");
  if (p.op != nullptr && std::strcmp(p.op, kReplaySsmOp) != 0)
    throw std::invalid_argument(fmt::format("plugin implements '{}'; this library checks kda_replayssm", p.op));
  if (p.envelope.device_type != kDLCPU)
    throw std::invalid_argument("this library drives host plugins (device_type kDLCPU) only");
  if (opt.first < 0 || opt.count < 0) throw std::invalid_argument("first and count must be >= 0");
  const int32_t profile = opt.profile >= 0 ? opt.profile : p.profile;
  const double budget = opt.work_budget > 0 ? opt.work_budget : kDefaultWorkBudget;
  nlohmann::json cases = nlohmann::json::array();
  const auto add = [&](const Outcome& o) {
    cases.push_back({{"suite", o.suite}, {"index", o.index}, {"pass", o.pass}, {"replay", o.replay}, {"detail", o.detail}});
  };
  if (opt.config != nullptr) {  // one case from its line; what follows " | " names the call, not the case
    const std::string line(opt.config);
    const CaseConfig c = parse_case_config(line.substr(0, line.find(" | ")));
    if (!is_valid_config(c)) throw std::invalid_argument("not a valid case config: " + line);
    add(rollout_case(p, c, profile, -1));
    return nlohmann::json{{"plugin", p.name ? p.name : ""}, {"profile", profile}, {"cases", cases}}.dump();
  }
  for (const std::string& suite : split_suites(opt.suites)) {
    for (int64_t i = opt.first; i < opt.first + opt.count; ++i) {
      Outcome o;
      try {
        if (suite == "rollout") {
          const auto drawn = cli::draw_case(opt.seed, static_cast<uint64_t>(i), budget);
          o = rollout_case(p, fit_to_envelope(drawn, p.envelope), profile, i);
        }
        else if (suite == "contract") o = contract_case(p, p.envelope, opt.seed, i);
        else o = envelope_case(p, p.envelope, opt.seed, i);
      } catch (const std::exception& e) {  // drawing or fitting the case failed
        o = Outcome{suite, i, false, fmt::format("suite {} case {} seed {}", suite, i, opt.seed),
                    std::string("harness error: ") + e.what()};
      }
      add(o);
    }
  }
  return nlohmann::json{{"plugin", p.name ? p.name : ""}, {"profile", profile}, {"cases", cases}}.dump();
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

}  // extern "C"
