#include "tools/check_suites.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>

#include "reference/replayssm_step.hpp"
#include "reference/rollout.hpp"
#include "tools/case_draw.hpp"
#include "tools/contract_catalogue_suite.hpp"
#include "tools/contract_sweep.hpp"

namespace kda::cli {
namespace {

CaseOutcome from_rollout(const reference::RolloutReport& r, const std::string& backend) {
  CaseOutcome o;
  o.pass = r.pass();
  for (const auto* c : {&r.outputs, &r.states}) {
    if (c->blocks == 0) continue;
    if (!o.compared || std::isnan(c->worst_error) || c->ratio() > o.ratio()) {
      o.compared = true;
      o.error = c->worst_error;
      o.tolerance = c->tolerance;
    }
  }
  o.replay = fmt::format("kda-harness case \"{}\" --backend {}", to_string(r.config), backend);
  o.detail = r.summary();
  return o;
}

// A contract case (SweepResult or CatalogueResult: pass, config, detail) as a check outcome.
template <class ContractResult>
CaseOutcome from_contract_case(const ContractResult& r, std::string replay) {
  CaseOutcome c;
  c.pass = r.pass;
  c.detail = r.pass ? r.config : r.config + ": " + r.detail;
  c.replay = std::move(replay);
  return c;
}

CaseOutcome from_verification(const golden::CaseVerification& v, const golden::LoadedCase& lc,
                              const std::string& backend) {
  CaseOutcome o;
  o.pass = v.pass();
  if (const reference::Comparison* w = v.worst()) {
    o.compared = true;
    o.error = w->worst_error;
    o.tolerance = w->tolerance;
  }
  o.replay = fmt::format("kda-harness case {} --backend {}", lc.path.string(), backend);
  o.detail = v.summary();
  return o;
}

// A golden suite over the loaded set; one extra case reports set-level problems.
SuiteSpec golden_suite(const SuiteInfo& info, const golden::LoadedSet& set, std::function<golden::VerifyBackend(int)> backend,
                       const std::string& backend_name) {
  SuiteSpec s;
  s.name = info.name;
  s.backend = info.backend;
  s.what = info.what;
  const bool set_problems = !set.problems.empty();
  s.cases = static_cast<int64_t>(set.cases.size()) + (set_problems ? 1 : 0);
  s.run = [&set, backend, backend_name](int64_t i, int worker) {
    if (i == static_cast<int64_t>(set.cases.size())) {
      CaseOutcome o;
      o.pass = false;
      o.detail = "golden set: " + fmt::format("{}", fmt::join(set.problems, "; "));
      return o;
    }
    const golden::LoadedCase& lc = set.cases[static_cast<std::size_t>(i)];
    if (!lc.problem.empty()) {
      CaseOutcome o;
      o.pass = false;
      o.detail = fmt::format("golden case {}: {}", lc.entry.name, lc.problem);
      return o;
    }
    return from_verification(golden::verify_case(lc.c, backend(worker)), lc, backend_name);
  };
  return s;
}

}  // namespace

const std::vector<SuiteInfo>& suite_catalog() {
  static const std::vector<SuiteInfo> suites = {
      {"contract", "cpu", "random valid calls accepted with their dims; one or two targeted mutations raise the "
                          "earliest check's exact catalog error", 40000},
      {"contract-catalogue", "cpu", "the contract tests' mutation catalogue (every check, every variant, sets of up "
                                    "to four) over random valid calls", 100000},
      {"reference", "cpu", "CPU reference (kernel rounding points) vs the float64 plain recurrence over random "
                           "rollouts, within the dtype-derived bounds", 8000},
      {"pure-double", "cpu", "float64 ReplaySSM model vs the float64 plain recurrence (1e-10) over random rollouts",
       5000},
      {"golden", "cpu", "the golden set (hashes, then every case) on the CPU reference", -1},
      {"kernel", "cuda", "CUDA kernel vs the CPU reference step by step: outputs, checkpoints, rings, row status, "
                         "footprint, guards", 2000},
      {"kernel-truth", "cuda", "CUDA kernel vs the float64 plain recurrence over random rollouts", 1000},
      {"golden-kernel", "cuda", "the golden set on the CUDA kernel", -1},
  };
  return suites;
}

std::vector<SuiteSpec> build_suites(const CheckOptions& o, const GpuProbe& gpus, const golden::LoadedSet& golden) {
  std::vector<SuiteSpec> out;
  std::vector<int> devices = o.gpus.empty() ? gpus.devices : o.gpus;
  std::string gpu_skip;
  if (!o.cuda) gpu_skip = "not requested (--backend cpu)";
  else if (devices.empty()) gpu_skip = gpus.reason.empty() ? "no usable GPU" : gpus.reason;
  for (const SuiteInfo& info : suite_catalog()) {
    if (!o.suites.empty() && !o.suites.count(info.name)) continue;
    const bool cuda = info.backend == "cuda";
    if (!cuda && !o.cpu) continue;
    int64_t count = info.default_cases < 0 ? -1 : static_cast<int64_t>(std::llround(info.default_cases * o.scale));
    if (auto it = o.counts.find(info.name); it != o.counts.end()) count = it->second;
    SuiteSpec s;
    if (info.name == "golden") {
      s = golden_suite(info, golden, [](int) {
        return golden::VerifyBackend{"reference", [](const StepArgs& a) { reference::replayssm_step(a); }, false};
      }, "reference");
    } else if (info.name == "golden-kernel") {
      s = golden_suite(info, golden, [devices](int w) { return cuda_backend(devices[w % devices.size()]); }, "cuda");
    } else {
      s.name = info.name;
      s.backend = info.backend;
      s.what = info.what;
      s.cases = count;
      const uint64_t seed = o.seed;
      const double budget = o.work_budget, gpu_budget = o.gpu_work_budget;
      if (info.name == "contract") {
        s.run = [seed](int64_t i, int) {
          return from_contract_case(contract_sweep_case(seed, static_cast<uint64_t>(i)),
                                    fmt::format("kda-harness check --suites contract --seed {} (sweep case {})", seed, i));
        };
      } else if (info.name == "contract-catalogue") {
        s.run = [seed](int64_t i, int) {
          return from_contract_case(
              contract_catalogue_case(seed, static_cast<uint64_t>(i)),
              fmt::format("kda-harness check --suites contract-catalogue --seed {} (case {})", seed, i));
        };
      } else if (info.name == "reference") {
        s.run = [seed, budget](int64_t i, int) {
          return from_rollout(reference::run_rollout(draw_case(seed, i, budget), reference::RolloutModel::Kernel),
                              "reference");
        };
      } else if (info.name == "pure-double") {
        s.run = [seed, budget](int64_t i, int) {
          return from_rollout(reference::run_rollout(draw_case(seed + 1, i, budget), reference::RolloutModel::PureDouble),
                              "pure-double");
        };
      } else if (info.name == "kernel") {
        s.run = [seed, gpu_budget, devices](int64_t i, int w) {
          return kernel_vs_reference(draw_case(seed + 2, i, gpu_budget), devices[w % devices.size()]);
        };
      } else if (info.name == "kernel-truth") {
        s.run = [seed, gpu_budget, devices](int64_t i, int w) {
          return from_rollout(kernel_vs_truth(draw_case(seed + 3, i, gpu_budget), devices[w % devices.size()]), "cuda");
        };
      }
    }
    if (cuda && !gpu_skip.empty()) s.skip_reason = gpu_skip;
    s.jobs = o.jobs;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kda::cli
