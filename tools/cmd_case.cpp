// `kda-harness case "<config line>"`: one rollout of the one-line CaseConfig that failing
// property tests, fuzzers and `check` print, on a chosen backend, compared with the float64
// plain recurrence (or, for cuda, with the CPU reference step by step: --against reference).
// `kda-harness case FILE.safetensors`: one golden-format file (a golden case, or a user's own
// dump of a real call) on a chosen backend, compared with the file's expected results, or,
// when it has none, with the float64 ReplaySSM model.
// The last line is the verdict: "PASS ..." (exit 0) or "FAIL ..." (exit 1). A config over the
// memory or work budget (tools/case_budget.hpp) is refused before anything is allocated.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "golden/golden_verify.hpp"
#include "golden/safetensors.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/rollout.hpp"
#include "tools/case_budget.hpp"
#include "tools/gpu_backend.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct CaseArgs {
  std::string target, backend = "reference", against = "truth";
  int gpu = -1;
  double memory_budget_mib = kDefaultMemoryBudgetMiB, work_budget = kDefaultCaseWorkBudget;
};

int verdict(bool pass, const std::string& what) {
  std::cout << (pass ? "PASS " : "FAIL ") << what << "\n";
  return pass ? kPass : kFail;
}

// The GPU to use, or -1 after printing why there is none.
int pick_gpu(int wanted) {
  const GpuProbe gpus = probe_gpus();
  if (gpus.devices.empty()) {
    std::cerr << "kda-harness case: --backend cuda, but " << gpus.reason << "\n";
    return -1;
  }
  if (wanted < 0) return gpus.devices[0];
  for (int d : gpus.devices)
    if (d == wanted) return d;
  std::cerr << "kda-harness case: GPU " << wanted << " is not usable here\n";
  return -1;
}

int run_file(const CaseArgs& a) {
  golden::GoldenCase c;
  try {
    c = golden::decode(golden::read_safetensors(golden::read_file_bytes(a.target)),
                       std::filesystem::path(a.target).stem().string());
  } catch (const std::exception& e) {
    std::cerr << "kda-harness case: " << e.what() << "\n";
    return kUsage;
  }
  golden::VerifyBackend backend;
  if (a.backend == "reference") {
    backend = {"reference", [](const StepArgs& s) { reference::replayssm_step(s, reference::Rounding::Kernel); }, false};
  } else if (a.backend == "reference-double") {
    backend = {"reference-double", [](const StepArgs& s) { reference::replayssm_step(s, reference::Rounding::Off); },
               false};
  } else if (a.backend == "cuda") {
    const int gpu = pick_gpu(a.gpu);
    if (gpu < 0) return 1;
    backend = cuda_backend(gpu);
  } else {
    std::cerr << "kda-harness case: a file runs on reference, reference-double or cuda\n";
    return kUsage;
  }
  std::cout << fmt::format("case {} ({}, {} step(s)){}\n", c.name, c.kind == golden::CaseKind::Step ? "step" : "error",
                           c.steps, c.purpose.empty() ? "" : ": " + c.purpose);
  if (c.config) std::cout << "  config: " << to_string(*c.config) << "\n";
  if (c.kind == golden::CaseKind::Error)
    std::cout << fmt::format("  expected: {} \"{}\"\n", c.expected_id, c.expected_message);
  const golden::CaseVerification v = golden::verify_case(c, backend);
  std::cout << v.summary() << "\n";
  return verdict(v.pass(), fmt::format("{} on {}", c.name, backend.name));
}

int run_config(const CaseArgs& a) {
  if (a.target.find_first_not_of(" \t\r\n") == std::string::npos) {
    std::cerr << "kda-harness case: usage error: the config line is empty (e.g. \"B=3 H=2 HV=4 K=16 V=16 L=4 "
                 "slots=5 steps=9 seed=5\"; keys left out take their defaults)\n";
    return kUsage;
  }
  CaseConfig config;
  try {
    config = parse_case_config(a.target);
  } catch (const std::invalid_argument& e) {
    std::cerr << "kda-harness case: " << e.what() << " (not a file either)\n";
    return kUsage;
  }
  if (!is_valid_config(config)) {
    std::cerr << "kda-harness case: the config does not describe a valid call: " << to_string(config) << "\n";
    return kUsage;
  }
  if (const std::string why = over_budget(config, a.memory_budget_mib, a.work_budget); !why.empty()) {
    std::cerr << "kda-harness case: " << why << "\n";
    return kUsage;
  }
  std::cout << "config: " << to_string(config) << "\n";
  std::cout << fmt::format("memory: about {:.0f} MiB (budget {:.0f} MiB)\n", case_memory_bytes(config) / (1 << 20),
                           a.memory_budget_mib);
  std::cout.flush();
  if (a.backend == "cuda") {
    const int gpu = pick_gpu(a.gpu);
    if (gpu < 0) return 1;
    if (a.against == "reference") {
      const CaseOutcome o = kernel_vs_reference(config, gpu);
      std::cout << "cuda:" << gpu << " vs the CPU reference, step by step:\n" << o.detail << "\n";
      return verdict(o.pass, fmt::format("cuda:{} vs the CPU reference, {} step(s)", gpu, config.steps));
    }
    const reference::RolloutReport r = kernel_vs_truth(config, gpu);
    std::cout << "cuda:" << gpu << " vs the float64 plain recurrence:\n" << r.summary() << "\n";
    return verdict(r.pass(), fmt::format("cuda:{} vs the float64 plain recurrence, {} step(s)", gpu, config.steps));
  }
  if (a.against != "truth") {
    std::cerr << "kda-harness case: --against reference is for --backend cuda\n";
    return kUsage;
  }
  const reference::RolloutModel model = a.backend == "reference"          ? reference::RolloutModel::Kernel
                                        : a.backend == "reference-double" ? reference::RolloutModel::Off
                                                                          : reference::RolloutModel::PureDouble;
  const reference::RolloutReport r = reference::run_rollout(config, model);
  std::cout << a.backend << " vs the float64 plain recurrence:\n" << r.summary() << "\n";
  return verdict(r.pass(), fmt::format("{} vs the float64 plain recurrence, {} step(s)", a.backend, config.steps));
}

}  // namespace

void register_case(CLI::App& app) {
  auto* cmd = app.add_subcommand("case", "Run one case: a one-line config, or a golden-format .safetensors file");
  auto a = std::make_shared<CaseArgs>();
  cmd->add_option("target", a->target, "\"B=3 H=2 ... seed=7\" (a CaseConfig line) or FILE.safetensors")->required();
  cmd->add_option("--backend", a->backend,
                  "reference (kernel rounding points), reference-double (float64 arithmetic), pure-double (float64 "
                  "model with float64 rings; config lines only) or cuda")
      ->check(CLI::IsMember({"reference", "reference-double", "pure-double", "cuda"}));
  cmd->add_option("--against", a->against, "cuda config runs: truth (float64 recurrence, default) or reference")
      ->check(CLI::IsMember({"truth", "reference"}));
  cmd->add_option("--gpu", a->gpu, "GPU to use (default: the first usable one)");
  cmd->add_option("--memory-budget", a->memory_budget_mib,
                  "Refuse a config line whose estimated memory exceeds this many MiB (default 4096)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--work-budget", a->work_budget,
                  "Refuse a config line of more reference work than this (rollout_work; default 1e10, a few minutes)")
      ->check(CLI::PositiveNumber);
  cmd->callback([a] {
    const bool file = std::filesystem::is_regular_file(a->target) || a->target.ends_with(".safetensors");
    set_exit_code(file ? run_file(*a) : run_config(*a));
  });
}

}  // namespace kda::cli
