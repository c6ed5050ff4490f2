// `kda-harness case "<config line>"`: one rollout of the one-line CaseConfig that failing
// property tests, fuzzers and `check` print, on a chosen backend, compared with the float64
// plain recurrence (or, for cuda, with the CPU reference step by step: --against reference).
// `kda-harness case FILE.safetensors`: one golden-format file (a golden case, or a user's own
// dump of a real call) on a chosen backend, compared with the file's expected results, or,
// when it has none, with the float64 ReplaySSM model.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "golden/golden_verify.hpp"
#include "golden/safetensors.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/rollout.hpp"
#include "tools/gpu_backend.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct CaseArgs {
  std::string target, backend = "reference", against = "truth";
  int gpu = -1;
};

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
    return 2;
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
    return 2;
  }
  std::cout << fmt::format("case {} ({}, {} step(s)){}\n", c.name, c.kind == golden::CaseKind::Step ? "step" : "error",
                           c.steps, c.purpose.empty() ? "" : ": " + c.purpose);
  if (c.config) std::cout << "  config: " << to_string(*c.config) << "\n";
  if (c.kind == golden::CaseKind::Error)
    std::cout << fmt::format("  expected: {} \"{}\"\n", c.expected_id, c.expected_message);
  const golden::CaseVerification v = golden::verify_case(c, backend);
  std::cout << v.summary() << "\n";
  return v.pass() ? 0 : 1;
}

int run_config(const CaseArgs& a) {
  CaseConfig config;
  try {
    config = parse_case_config(a.target);
  } catch (const std::invalid_argument& e) {
    std::cerr << "kda-harness case: " << e.what() << " (not a file either)\n";
    return 2;
  }
  if (!is_valid_config(config)) {
    std::cerr << "kda-harness case: the config does not describe a valid call: " << to_string(config) << "\n";
    return 2;
  }
  std::cout << "config: " << to_string(config) << "\n";
  if (a.backend == "cuda") {
    const int gpu = pick_gpu(a.gpu);
    if (gpu < 0) return 1;
    if (a.against == "reference") {
      const CaseOutcome o = kernel_vs_reference(config, gpu);
      std::cout << "cuda:" << gpu << " vs the CPU reference, step by step:\n" << o.detail << "\n"
                << (o.pass ? "pass" : "FAIL") << "\n";
      return o.pass ? 0 : 1;
    }
    const reference::RolloutReport r = kernel_vs_truth(config, gpu);
    std::cout << "cuda:" << gpu << " vs the float64 plain recurrence:\n" << r.summary() << "\n";
    return r.pass() ? 0 : 1;
  }
  if (a.against != "truth") {
    std::cerr << "kda-harness case: --against reference is for --backend cuda\n";
    return 2;
  }
  const reference::RolloutModel model = a.backend == "reference"          ? reference::RolloutModel::Kernel
                                        : a.backend == "reference-double" ? reference::RolloutModel::Off
                                                                          : reference::RolloutModel::PureDouble;
  const reference::RolloutReport r = reference::run_rollout(config, model);
  std::cout << a.backend << " vs the float64 plain recurrence:\n" << r.summary() << "\n";
  return r.pass() ? 0 : 1;
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
  cmd->callback([a] {
    const bool file = std::filesystem::is_regular_file(a->target) || a->target.ends_with(".safetensors");
    set_exit_code(file ? run_file(*a) : run_config(*a));
  });
}

}  // namespace kda::cli
