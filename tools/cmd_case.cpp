// `kda-harness case "<config line>"`: one rollout of the one-line CaseConfig that failing
// property tests, fuzzers and `check` print, on a chosen backend, compared with the float64
// plain recurrence (or with the CPU reference step by step: --against reference).
// `kda-harness case FILE.safetensors`: one golden-format file (a golden case, or a user's own
// dump of a real call) on a chosen backend, compared with the file's expected results, or,
// when it has none, with the float64 ReplaySSM model.
// The last line is the verdict: "PASS ..." (exit 0) or "FAIL ..." (exit 1). The line comes in
// as every entry point's does (engine/driver/case_line.hpp): its operator (op=, or --op), the
// operator's case, and a config over the memory or work budget refused before anything is allocated.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "engine/backends/backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/case_line.hpp"
#include "engine/driver/fatal_signal.hpp"
#include "engine/driver/reference_vs_truth.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/oracles/refusal.hpp"
#include "golden/golden_verify.hpp"
#include "golden/safetensors.hpp"
#include "tools/argument_checks.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct CaseArgs {
  std::string target, backend = "reference", against = "truth", op = std::string(engine::default_operator().name);
  int gpu = -1;
  engine::CaseBudget budget;
  const CLI::Option* op_option = nullptr;  // whether --op was given (else a plugin's own operator)
  bool op_of_file = false;                 // a golden file's operator, which a plugin must implement
};

const engine::OperatorDescription& op_of(const CaseArgs& a) {
  return a.op_of_file ? engine::find_operator(a.op) : judged_operator(a.op_option, a.op, a.backend);
}

int verdict(bool pass, const std::string& what) {
  std::cout << (pass ? "PASS " : "FAIL ") << what << "\n";
  return pass ? kPass : kFail;
}

// The backend a case of `op` runs on (--gpu N picks the GPU of "cuda"), or nullptr after saying
// why (an unknown backend, a plugin that does not load, a GPU that is not there: usage errors).
std::unique_ptr<engine::Backend> make(const CaseArgs& a, const engine::OperatorDescription& op) {
  const std::string spec = a.backend == "cuda" && a.gpu >= 0 ? fmt::format("cuda:{}", a.gpu) : a.backend;
  try {
    return engine::make_backend(spec, op);
  } catch (const std::exception& e) {
    std::cerr << "kda-harness case: --backend " << spec << ": " << e.what() << "\n";
    return nullptr;
  }
}

int run_file(const CaseArgs& a) {
  golden::GoldenCase c;
  try {
    c = golden::decode(golden::read_safetensors_file(a.target),
                       std::filesystem::path(a.target).stem().string());
  } catch (const std::exception& e) {
    std::cerr << "kda-harness case: " << e.what() << "\n";
    return kUsage;
  }
  if (a.backend == "pure-double") {
    std::cerr << "kda-harness case: pure-double runs config lines only\n";
    return kUsage;
  }
  CaseArgs for_case = a;
  for_case.op = c.op;  // the file names its operator
  for_case.op_of_file = true;
  const std::unique_ptr<engine::Backend> backend = make(for_case, op_of(for_case));
  if (!backend) return kUsage;
  std::cout << fmt::format("case {} ({}, {} step(s)){}\n", c.name, c.kind == golden::CaseKind::Step ? "step" : "error",
                           c.steps, c.purpose.empty() ? "" : ": " + c.purpose);
  if (c.config) std::cout << "  config: " << to_string(*c.config) << "\n";
  if (c.kind == golden::CaseKind::Error)
    std::cout << fmt::format("  expected: {} \"{}\"\n", c.expected_id, c.expected_message);
  const engine::CaseReport v = golden::verify_case(c, *backend);
  std::cout << v.summary() << "\n";
  return verdict(v.pass(), fmt::format("{} on {}", c.name, backend->name()));
}

// What a config line's run ends in: whether it passed, and the verdict line's words.
struct Outcome {
  bool pass;
  std::string what;
};

// The line's case played on `backend`: outside its envelope, refused with nothing written; else
// run against the truth or the CPU reference. No backend: by pure-double (the float64 model
// with float64 rings) against the truth.
Outcome play(const CaseArgs& a, const engine::OperatorCase& c, engine::Backend* backend) {
  if (backend == nullptr) {
    const engine::CaseReport r = engine::reference_vs_truth(c, engine::ReferenceModel::PureDouble);
    std::cout << "pure-double vs the float64 plain recurrence:\n" << r.summary() << "\n";
    return {r.pass(), fmt::format("pure-double vs the float64 plain recurrence, {} step(s)", c.config.steps)};
  }
  if (const std::string outside = backend->envelope().excludes(c.config); !outside.empty()) {
    CaseTensors t = engine::materialize_case(*c.op, c.config);
    const std::string why = engine::refusal_problem(*backend, t.args());
    std::cout << fmt::format("{}: the case lies outside its envelope ({}): {}\n", backend->name(), outside,
                             why.empty() ? "refused, nothing written" : why);
    return {why.empty(), fmt::format("{} refuses a case outside its envelope", backend->name())};
  }
  const engine::CaseReport r = a.against == "reference" ? engine::run_vs_reference(c, *backend)
                                                        : engine::run_vs_truth(c, *backend);
  std::cout << r.summary() << "\n  replay: " << r.replay() << "\n";
  return {r.pass(), fmt::format("{} vs the {}, {}", backend->name(),
                                a.against == "reference" ? "CPU reference" : "float64 plain recurrence",
                                r.tokens_run())};
}

int run_config(const CaseArgs& a) {
  if (a.target.find_first_not_of(" \t\r\n") == std::string::npos) {
    std::cerr << "kda-harness case: usage error: the config line is empty (e.g. \"B=3 H=2 HV=4 K=16 V=16 L=4 "
                 "slots=5 steps=9 seed=5\"; keys left out take their defaults)\n";
    return kUsage;
  }
  if (a.backend == "pure-double" && a.against != "truth") {
    std::cerr << "kda-harness case: pure-double is judged against the truth only\n";
    return kUsage;
  }
  const engine::OperatorDescription& otherwise = op_of(a);
  const engine::OperatorGiven given{a.op_option->count() > 0 ? &engine::find_operator(a.op) : nullptr, "--op",
                                    &otherwise};
  engine::OperatorCase c;
  try {
    c = engine::read_case_line(a.target, given, a.budget);
  } catch (const engine::CaseLineError& e) {
    std::cerr << "kda-harness case: " << e.what()
              << (e.kind == engine::CaseLineError::Kind::Syntax ? " (not a file either)\n" : "\n");
    return kUsage;
  }
  std::cout << "config: " << engine::config_line(c.config, *c.op) << "\n";
  std::cout << fmt::format("memory: about {:.0f} MiB (budget {:.0f} MiB)\n",
                           engine::case_memory_bytes(c.config) / (1 << 20), a.budget.memory_mib);
  std::cout.flush();
  const bool pure_double = a.backend == "pure-double";
  const std::unique_ptr<engine::Backend> backend = pure_double ? nullptr : make(a, *c.op);
  if (!pure_double && !backend) return kUsage;
  const Outcome o = play(a, c, backend.get());
  return verdict(o.pass, o.what);
}

}  // namespace

void register_case(CLI::App& app) {
  auto* cmd = app.add_subcommand("case", "Run one case: a one-line config, or a golden-format .safetensors file");
  auto a = std::make_shared<CaseArgs>();
  cmd->add_option("target", a->target,
                  "\"B=3 H=2 ... seed=7\" (a case line; op=NAME names an operator other than the default, as --op "
                  "does) or FILE.safetensors")
      ->required();
  cmd->add_option("--backend", a->backend,
                  "reference (kernel rounding points), reference-double (float64 arithmetic), pure-double (float64 "
                  "model with float64 rings; config lines only), cuda[:N] or plugin:PATH");
  cmd->add_option("--against", a->against,
                  "config lines: truth (the float64 plain recurrence, default) or reference (the CPU reference, "
                  "step by step)")
      ->check(CLI::IsMember({"truth", "reference"}));
  a->op_option = add_op_option(cmd, a->op);
  cmd->add_option("--gpu", a->gpu, "GPU to use (default: the first usable one)");
  cmd->add_option("--memory-budget", a->budget.memory_mib,
                  "Refuse a config line whose estimated memory exceeds this many MiB (default 4096)")
      ->check(finite_positive_at_most(kMaxMemoryBudgetMiB));
  cmd->add_option("--work-budget", a->budget.work,
                  "Refuse a config line of more reference work than this (rollout_work plus 1e3 a step; default 1e10, a few minutes)")
      ->check(finite_positive_at_most(kMaxWorkBudget));
  cmd->callback([a] {
    engine::install_fatal_signal_report();  // a fault on a guard page is named (engine/driver/guard_pages.hpp)
    const bool file = std::filesystem::is_regular_file(a->target) || a->target.ends_with(".safetensors");
    set_exit_code(file ? run_file(*a) : run_config(*a));
  });
}

}  // namespace kda::cli
