// `kda-harness mutants [--op OP]`: the harness judges itself. Every plugin of operator OP with
// a planted bug found in the plugins folder runs through the default check's backend suites
// (tools/mutant_matrix.hpp),
// each stopped at its first kill; the unmutated plugin runs the same cases and must pass.
// Prints the kill matrix (mutant x suite: cases until the kill, CPU seconds) and each
// mutant's first failure with its replay line. Exit 0 only when every mutant is killed
// within the CPU budget with a message that says where (tensor, row or slot, head, step)
// and the unmutated plugin passes (with --each-suite: and every suite alone kills every
// mutant it can see); 1 otherwise; 2 for usage errors.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "engine/backends/gpu_probe.hpp"
#include "engine/description/production_shapes.hpp"
#include "golden/golden_set.hpp"
#include "tools/argument_checks.hpp"
#include "tools/mutant_matrix.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct MutantsArgs {
  std::string backend = "cpu", op{engine::default_operator().name}, dir, manifest, model;
  int64_t cases = 100;
  uint64_t seed = 1;
  double cpu_budget = 10, gpu_work_budget = 2e7;
  int64_t kill_within = 0;  // cases before the first kill (0: no limit)
  int jobs = 0;
  bool each_suite = false;
  std::vector<std::string> unseen;  // "SUITE:MUTANT" (MUTANT may be *): that suite cannot see that bug
  std::vector<std::string> suites;  // empty: every backend suite
};

bool is_unseen(const MutantsArgs& a, const std::string& suite, const std::string& mutant) {
  for (const std::string& u : a.unseen)
    if (u == suite + ":" + mutant || u == suite + ":*") return true;
  return false;
}

// The build's plugins folder: ../plugins from this executable (build/tools/kda-harness).
std::filesystem::path default_plugin_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("plugins") : exe.parent_path().parent_path() / "plugins";
}

// "gqa-head-mod" for "cpu-example-mutant-gqa-head-mod": the bug, without the family's name.
std::string short_name(const PluginRun& r) {
  if (r.control) return r.name + " (unmutated)";
  const auto at = r.name.find("-mutant-");
  return at == std::string::npos ? r.name : r.name.substr(at + 8);
}

std::string cell(const SuiteRun& s) {
  if (!s.error.empty()) return "error";
  return fmt::format("{} {:>3} {:>5.2f}s", s.killed ? "KILLED" : "pass  ", s.cases, s.cpu_seconds);
}

std::string matrix(const std::vector<PluginRun>& runs, const std::vector<std::string>& suites) {
  std::string s = fmt::format("{:<34}", "mutant");
  for (const std::string& suite : suites) s += fmt::format(" {:<18}", suite);
  s += " first kill\n" + std::string(34 + 19 * suites.size() + 24, '-') + "\n";
  for (const PluginRun& r : runs) {
    s += fmt::format("{:<34}", short_name(r));
    for (const SuiteRun& suite : r.suites) s += fmt::format(" {:<18}", cell(suite));
    const SuiteRun* k = r.first_kill();
    s += k ? fmt::format(" {} after {} cases, {:.2f}s\n", k->suite, r.cases_to_kill(), r.cpu_seconds_to_kill())
           : (r.control ? " none (as it must)\n" : " SURVIVED\n");
  }
  return s;
}

int run_mutants(const MutantsArgs& a) {
  PluginFamily family;
  try {
    family = plugin_family(a.backend, a.op);
  } catch (const std::exception& e) {
    std::cerr << "kda-harness mutants: " << e.what() << "\n";
    return 2;
  }
  if (a.backend == "cuda") {
    // Without a GPU no CUDA plugin loads: every mutant would "survive" a run that judged nothing.
    if (const engine::GpuProbe gpus = engine::probe_gpus(); gpus.devices.empty()) {
      std::cerr << "kda-harness mutants: --backend cuda, but no GPU is usable here: " << gpus.reason << "\n";
      return kUsage;
    }
  }
  const std::filesystem::path dir = a.dir.empty() ? default_plugin_dir() : std::filesystem::path(a.dir);
  // Where the planted-bug plugins come from, for a user of an installed harness (pip, cmake
  // --install), which ships none.
  const std::string where = a.dir.empty() ? " (the planted-bug plugins are built by a CMake build of the repository, "
                                            "KDA_BUILD_MUTANTS=ON by default, and never installed: --dir names its "
                                            "build/plugins folder)"
                                          : "";
  if (std::error_code ec; !std::filesystem::is_directory(dir, ec)) {
    std::cerr << "kda-harness mutants: --dir " << dir.string() << " is no folder" << where << "\n";
    return kUsage;
  }
  const FoundPlugins found = find_plugins(dir, family);
  if (found.mutants.empty()) {
    std::cout << fmt::format("kda-harness mutants: no {} mutant plugins ({}*.so) in {}{}{}\n", a.backend,
                             family.mutant_prefix, dir.string(),
                             a.backend == "cuda" ? ": the CUDA mutants are not built yet" : "", where);
    return 1;
  }
  if (found.control.empty()) {
    std::cout << fmt::format("kda-harness mutants: the unmutated plugin {} is not in {}\n", family.control, dir.string());
    return 1;
  }
  MatrixOptions o;
  o.op = &engine::find_operator(a.op);
  o.cases = a.cases;
  o.seed = a.seed;
  o.gpu_work_budget = a.gpu_work_budget;
  if (!a.model.empty()) {
    try {
      o.model = engine::parse_model(a.model, o.op->fit_case(CaseConfig{}).gate_per_head);
    } catch (const std::invalid_argument& e) {
      std::cerr << "kda-harness mutants: " << e.what() << "\n";
      return kUsage;
    }
  }
  if (!a.suites.empty()) {  // the check's order, whatever the order given
    o.suites.clear();
    for (const std::string& s : mutant_suites())
      if (std::find(a.suites.begin(), a.suites.end(), s) != a.suites.end()) o.suites.push_back(s);
  }
  o.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::cout << fmt::format("kda-harness mutants: {} mutants of {} ({}) in {}; suites {} (up to {} cases each, golden: "
                           "the operator's whole set), seed {}, {} at once\n",
                           found.mutants.size(), family.control, a.op, dir.string(), fmt::join(o.suites, ", "),
                           o.cases, o.seed, o.jobs);
  std::cout.flush();
  const golden::LoadedSet set =
      golden::load_set(a.manifest.empty() ? golden::default_manifest_path() : std::filesystem::path(a.manifest));
  const std::vector<PluginRun> runs = run_matrix(found.mutants, found.control, set, o);

  std::cout << "\n" << matrix(runs, o.suites) << "\n";
  int killed = 0, survived = 0, late = 0, unnamed = 0, false_alarms = 0, errors = 0, blind = 0;
  for (const PluginRun& r : runs) {
    bool ran = true;
    for (const SuiteRun& s : r.suites)
      if (!s.error.empty()) {
        ++errors;
        ran = false;
        std::cout << fmt::format("ERROR {} [{}]: {}\n", short_name(r), s.suite, s.error);
        break;
      }
    const SuiteRun* k = r.first_kill();
    if (r.control) {
      for (const SuiteRun& s : r.suites)
        if (s.killed) {
          ++false_alarms;
          std::cout << fmt::format("FALSE ALARM {} [{}]: {}\n  replay: {}\n", short_name(r), s.suite, s.message, s.replay);
        }
      continue;
    }
    if (!k) {
      if (!ran) continue;  // reported above, counted as a plugin that did not run
      ++survived;
      std::cout << fmt::format("SURVIVED {}: no suite failed it\n", short_name(r));
      continue;
    }
    ++killed;
    if (a.each_suite)
      for (const SuiteRun& s : r.suites)
        if (!s.killed && !s.skipped && !is_unseen(a, s.suite, short_name(r))) {
          ++blind;
          std::cout << fmt::format("NOT KILLED BY {}: {} (it must kill every mutant not listed with --unseen)\n", s.suite,
                                   short_name(r));
        }
    const bool in_cases = a.kill_within <= 0 || r.cases_to_kill() <= a.kill_within;
    const bool named = names_place(k->message), in_time = r.cpu_seconds_to_kill() <= a.cpu_budget && in_cases;
    unnamed += !named;
    late += !in_time;
    std::cout << fmt::format("{} [{}]: {}\n  replay: {}\n", short_name(r), k->suite, k->message, k->replay);
    if (!named) std::cout << "  ^ the message does not name the tensor, the row or slot, the head and the step\n";
    if (r.cpu_seconds_to_kill() > a.cpu_budget)
      std::cout << fmt::format("  ^ killed after {:.1f} CPU seconds, over the budget of {:.1f}\n", r.cpu_seconds_to_kill(),
                               a.cpu_budget);
    if (!in_cases)
      std::cout << fmt::format("  ^ killed after {} cases, over --kill-within {}\n", r.cases_to_kill(), a.kill_within);
  }
  const int mutants = static_cast<int>(found.mutants.size());
  std::cout << fmt::format("\n{} mutants: {} killed, {} survived; killed late: {}; unnamed messages: {}; false alarms on "
                           "the unmutated plugin: {}; plugins that did not run: {}{}\n",
                           mutants, killed, survived, late, unnamed, false_alarms, errors,
                           a.each_suite ? fmt::format("; missed by a suite that should see them: {}", blind) : "");
  return survived || late || unnamed || false_alarms || errors || blind ? 1 : 0;
}

}  // namespace

void register_mutants(CLI::App& app) {
  auto* cmd = app.add_subcommand("mutants", "Judge the harness: plugins with planted bugs must fail the backend suites, "
                                            "the unmutated plugin must pass them");
  auto a = std::make_shared<MutantsArgs>();
  cmd->add_option("--backend", a->backend, "cpu (the CPU example's mutants) or cuda (the CUDA kernel's)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_op_option(cmd, a->op);
  cmd->add_option("--dir", a->dir, "Folder of the plugins (default: the build's plugins folder, ../plugins from this "
                                   "executable)");
  cmd->add_option("--cases", a->cases, "Cases per random suite before a mutant counts as surviving it")
      ->check(CLI::PositiveNumber);
  add_seed_option(cmd, a->seed, "Seed of the random cases (the check's default: 1)");
  cmd->add_option("--cpu-budget", a->cpu_budget, "CPU seconds the default check may spend on a mutant before its "
                                                 "first kill");
  cmd->add_option("--kill-within", a->kill_within, "Cases the default check may run before a mutant's first kill "
                                                   "(0, the default: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--gpu-work-budget", a->gpu_work_budget, "Reference work per random backend rollout")
      ->check(finite_positive_at_most(kMaxWorkBudget));
  cmd->add_option("--manifest", a->manifest, "The golden set's manifest (default: the source tree's)");
  cmd->add_option("--model", a->model, "Draw the kernel suites at one model's per-GPU shapes, NAME[:tp=N] (as check)");
  cmd->add_option("--jobs,-j", a->jobs, "Plugins judged at once (default: hardware threads)");
  cmd->add_option("--suites", a->suites, "Backend suites to run (comma-separated; default: every one of the check)")
      ->delimiter(',')
      ->check(CLI::IsMember(mutant_suites()));
  cmd->add_flag("--each-suite", a->each_suite, "Every suite alone must kill every mutant, except the --unseen pairs");
  cmd->add_option("--unseen", a->unseen, "SUITE:MUTANT (MUTANT may be *): a bug that suite cannot see (with --each-suite)")
      ->delimiter(',');
  cmd->callback([a] { set_exit_code(run_mutants(*a)); });
}

}  // namespace kda::cli
