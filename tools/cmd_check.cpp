// `kda-harness check`: the main job. Runs the conformance suites on what the machine has
// (tools/check_suites.hpp): the contract sweep, the reference and the pure-double model
// against the plain recurrence, the golden set on the reference, and, where a GPU can be
// used, the kernel against the reference, against the recurrence and on the golden set.
// Progress with an estimate of the time left on stderr (a bar on a terminal, else a line every
// few seconds), a summary table at the end, --json and --junit for reports (written whole or
// not at all; `-` is stdout, and the text then goes to stderr); exit 0 only when every case
// of every suite that ran passed and one case at least ran (1 otherwise, 77 when every suite
// was skipped, 2 for usage errors and failed writes).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "engine/backends/cuda_backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/production_shapes.hpp"
#include "engine/description/restriction.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/defaults.hpp"
#include "engine/driver/fatal_signal.hpp"
#include "engine/driver/step_timing_json.hpp"
#include "golden/atomic_file.hpp"
#include "golden/golden_set.hpp"
#include "tools/argument_checks.hpp"
#include "tools/check_isolated.hpp"
#include "tools/check_junit.hpp"
#include "tools/check_report.hpp"
#include "tools/check_shrink.hpp"
#include "tools/check_suites.hpp"
#include "tools/check_time.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> suites, counts;
  std::vector<int> gpus;
  double scale = 1.0, work_budget = 3e7, gpu_work_budget = engine::defaults::kCliWorkBudget;
  uint64_t seed = engine::defaults::kSeed;
  std::string backend = "all", json, junit, manifest, op = std::string(engine::default_operator().name), restriction, model;
  std::string pin;  // --pin: config keys every drawn case takes
  int jobs = 0;
  double progress_every = 5;
  bool no_shrink = false, junit_every_case = false, time = false;
  bool no_progress = false, list = false, list_models = false, stats = false, isolate = false,
       probe_invalid_indices = false;
  double case_timeout = 0;
  const CLI::Option* op_option = nullptr;  // whether --op was given (else a plugin's own operator)
};

// Whether the suite runs the judged backend (the ones --isolate runs in child processes).
bool judges_backend(const SuiteSpec& spec) {
  const engine::SuiteInfo* info = engine::find_suite(spec.name);
  return info != nullptr && info->judges_backend && static_cast<bool>(spec.replay);
}

// The table of suites (engine/driver/suites.hpp): name, what it judges (the harness on the CPU, or the
// backend), default case count (set: the golden set's), seed (the --seed plus an offset), and
// what it checks.
std::string suite_list() {
  std::string out;
  for (const engine::SuiteInfo& s : engine::suite_table())
    out += fmt::format("{:<18} {:<7} {:>6}  {:<6}  {}{}\n", s.name, s.judges_backend ? "backend" : "harness",
                       s.default_cases < 0 ? std::string("set") : std::to_string(s.default_cases),
                       s.default_cases < 0 ? std::string("-") : fmt::format("seed+{}", s.seed_offset),
                       s.in_default_check ? "" : "(only when --suites names it) ", s.what);
  return out;
}

// The suites' names for --help: every one, those the default check leaves out marked.
std::string suite_names() {
  std::string out;
  for (const engine::SuiteInfo& s : engine::suite_table())
    out += fmt::format("{}{}{}", out.empty() ? "" : ", ", s.name, s.in_default_check ? "" : " (not by default)");
  return out;
}

// Writes a report to a file (golden/atomic_file.hpp: a regular file atomically, a device or
// FIFO written through, a symlink kept) or, for "-", to stdout; false after printing why not.
bool write_report(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return true;
  }
  try {
    golden::write_output_file(path, text);
    return true;
  } catch (const golden::AtomicWriteError& e) {
    std::cerr << "kda-harness check: " << e.what() << "\n";
    return false;
  }
}

// The backend --time times: the plugin judged, else our kernel on the first usable GPU; null
// where there is neither.
std::unique_ptr<engine::Backend> timed_backend(const CheckOptions& o, const engine::GpuProbe& gpus) {
  if (!o.plugin.empty()) return engine::make_backend(o.plugin, *o.op);
  const std::vector<int>& devices = o.gpus.empty() ? gpus.devices : o.gpus;
  if (!o.cuda || devices.empty()) return nullptr;
  return engine::make_cuda_backend(devices.front(), *o.op);
}

int run_check(const CheckArgs& a) {
  if (a.list) {
    std::cout << suite_list();
    return 0;
  }
  if (a.list_models) {
    std::cout << engine::model_table_text();
    return 0;
  }
  CheckOptions o;
  for (const auto& s : a.suites) {
    if (const std::string problem = engine::suite_problem(s); !problem.empty()) {
      std::cerr << "kda-harness check: " << problem << " (see --list)\n";
      return kUsage;
    }
    o.suites.insert(s);
  }
  for (const auto& c : a.counts) {
    const auto eq = c.find('=');
    char* end = nullptr;
    errno = 0;
    const long long n = eq == std::string::npos ? -1 : std::strtoll(c.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || n < 0 || *end != '\0' || errno == ERANGE || end == c.c_str() + eq + 1) {
      std::cerr << "kda-harness check: --cases takes SUITE=N, not " << c << "\n";
      return kUsage;
    }
    const std::string suite = c.substr(0, eq);
    if (const std::string problem = engine::suite_problem(suite); !problem.empty()) {
      std::cerr << "kda-harness check: --cases " << c << ": " << problem << " (see --list)\n";
      return kUsage;
    }
    o.counts[suite] = n;
  }
  if (a.jobs < 0) {
    std::cerr << "kda-harness check: --jobs takes a number of worker threads (0: one per hardware thread), not "
              << a.jobs << "\n";
    return kUsage;
  }
  for (int g : a.gpus)
    if (g < 0) {
      std::cerr << "kda-harness check: --gpus takes device ids from 0, not " << g << "\n";
      return kUsage;
    }
  o.scale = a.scale;
  o.seed = a.seed;
  try {
    o.restriction = engine::parse_restriction(a.restriction);
    o.restriction_text = a.restriction;
  } catch (const std::invalid_argument& e) {
    std::cerr << "kda-harness check: --restrict: " << e.what() << "\n";
    return kUsage;
  }
  if (a.json == "-" && a.junit == "-") {
    std::cerr << "kda-harness check: --json - and --junit - cannot both write to stdout\n";
    return kUsage;
  }
  // With a report on stdout, the text goes to stderr so that stdout is the report alone.
  std::ostream& text = a.json == "-" || a.junit == "-" ? std::cerr : std::cout;
  o.op = &judged_operator(a.op_option, a.op, a.backend);
  if (!a.pin.empty())
    if (const std::string why = engine::pin_error(a.pin); !why.empty()) {
      std::cerr << "kda-harness check: --pin: " << why << "\n";
      return kUsage;
    }
  o.pin = a.pin;
  if (!a.model.empty()) {
    try {
      o.model = engine::parse_model(a.model, o.op->fit_case(CaseConfig{}).gate_per_head);
      o.model_text = a.model;
    } catch (const std::invalid_argument& e) {
      std::cerr << "kda-harness check: " << e.what() << "\n";
      return kUsage;
    }
    text << fmt::format("kda-harness check: the kernel suites draw {}'s shapes: H={} HV={} K={} V={}, decode batches "
                        "B 1..256\n", o.model->model, o.model->H, o.model->HV, o.model->K, o.model->V);
  }
  if (a.backend.rfind("plugin:", 0) == 0) {
    // Judge the plugin: the backend suites only (the CPU suites judge the harness itself).
    try {
      const auto b = engine::make_backend(a.backend, *o.op);
      text << fmt::format("kda-harness check: backend {} ({} profile), envelope {}\n", b->name(),
                               engine::name_of(b->profile()), b->envelope().describe(*o.op));
      text << fmt::format("kda-harness check: invalid rows: {}\n",
                          engine::invalid_rows_claim(b->envelope().invalid_rows, a.probe_invalid_indices, *o.op));
      if (!a.restriction.empty())
        text << fmt::format("kda-harness check: sampling restricted (--restrict) to {}\n",
                            engine::narrowed(b->envelope(), o.restriction).describe(*o.op));
    } catch (const std::exception& e) {
      std::cerr << "kda-harness check: " << e.what() << "\n";
      return kUsage;
    }
    o.plugin = a.backend;
    o.cpu = o.cuda = false;
  } else if (a.backend != "cpu" && a.backend != "cuda" && a.backend != "all") {
    std::cerr << "kda-harness check: --backend takes cpu, cuda, all or plugin:PATH, not " << a.backend << "\n";
    return kUsage;
  } else {
    o.cpu = a.backend != "cuda";
    o.cuda = a.backend != "cpu";
    o.cuda_required = a.backend == "cuda";
  }
  if (a.isolate && o.plugin.empty()) {
    // The cuda backend probes the GPU in this process, and a forked case cannot use a CUDA
    // context its parent created; our kernel is also a plugin.
    std::cerr << "kda-harness check: --isolate judges a plugin (--backend plugin:PATH; our CUDA kernel is "
                 "plugins/libkda_cuda_kernel_kda_replayssm.so in the build)\n";
    return kUsage;
  }
  o.gpus = a.gpus;
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.jobs = a.jobs > 0 ? a.jobs : hardware;
  // Threads past a few per hardware thread only cost memory (a stack each): 100000 of them
  // would take the memory the cases need.
  if (const int most = std::max(16, 4 * hardware); o.jobs > most) {
    std::cerr << fmt::format("kda-harness check: --jobs {}: using {} worker threads (at most 4 per hardware thread, or 16)\n",
                             o.jobs, most);
    o.jobs = most;
  }
  o.work_budget = a.work_budget;
  o.gpu_work_budget = a.gpu_work_budget;
  o.probe_invalid_rows = a.probe_invalid_indices;
  if (!a.restriction.empty()) {
    // A restriction that leaves the backend suites no case is the user's mistake, not a failed check.
    engine::Envelope region;
    if (!o.plugin.empty()) region = engine::make_backend(o.plugin, *o.op)->envelope();
    try {
      engine::draw_backend_case(*o.op, o.seed, 0, engine::limits::check_cases(o.gpu_work_budget),
                                engine::narrowed(region, o.restriction), o.model ? &*o.model : nullptr);
    } catch (const std::invalid_argument& e) {
      std::cerr << "kda-harness check: --restrict " << a.restriction << ": " << e.what() << "\n";
      return kUsage;
    }
  }
  o.manifest = a.manifest.empty() ? golden::default_manifest_path() : std::filesystem::path(a.manifest);
  if (a.stats) {
    engine::Envelope region;  // our kernel takes the whole contract and flags invalid rows in its row status
    region.invalid_rows = engine::InvalidRows::Flag;
    if (!o.plugin.empty()) region = engine::make_backend(o.plugin, *o.op)->envelope();
    text << backend_suite_stats(o, region);
    text << "invalid rows: " << engine::invalid_rows_claim(region.invalid_rows, o.probe_invalid_rows, *o.op) << "\n";
    return kPass;
  }

  const engine::GpuProbe gpus = o.cuda ? engine::probe_gpus() : engine::GpuProbe{};
  for (int g : o.gpus)
    if (std::find(gpus.devices.begin(), gpus.devices.end(), g) == gpus.devices.end()) {
      std::cerr << "kda-harness check: GPU " << g << " is not usable here" << (gpus.reason.empty() ? "" : ": " + gpus.reason)
                << "\n";
      return 1;
    }
  if (o.cuda_required && gpus.devices.empty()) {
    std::cerr << "kda-harness check: --backend cuda, but " << gpus.reason << "\n";
    return 1;
  }
  text << fmt::format("kda-harness check: {}, seed {}, {} worker thread(s), GPUs: {}\n", o.op->name, o.seed, o.jobs,
                           gpus.devices.empty() ? (o.cuda ? "none (" + gpus.reason + ")" : std::string("not used"))
                                                : fmt::format("{}", fmt::join(gpus.names, ", ")));
  const auto start = std::chrono::steady_clock::now();
  const golden::LoadedSet set = golden::load_set(o.manifest);
  const bool golden_suites = o.suites.empty() || o.suites.count("golden") || o.suites.count("golden-kernel");
  if (set.manifest_unreadable && golden_suites) {
    std::cerr << "kda-harness check: " << set.problems.front() << " (--manifest names the golden set)\n";
    return kUsage;
  }
  const Progress progress(progress_mode(a.no_progress), a.progress_every);
  std::vector<SuiteResult> results;
  engine::install_fatal_signal_report();
  for (const SuiteSpec& spec : build_suites(o, gpus, set)) {
    results.push_back(a.isolate && judges_backend(spec) ? run_suite_isolated(spec, progress, a.case_timeout)
                                                        : run_suite(spec, progress));
    const SuiteResult& r = results.back();
    text << (r.skipped() ? fmt::format("{}: skipped: {}\n", r.name, r.skip_reason)
                              : fmt::format("{}: {} cases, {} passed, {} failed, {:.1f}s\n", r.name, r.cases, r.passed,
                                            r.failed, r.seconds));
    text.flush();
  }
  if (!a.no_shrink && !a.isolate) shrink_failures(results, *o.op, text);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  text << "\n" << failure_listing(results) << summary_table(results, wall);
  text << coverage_text(results, *o.op);
  std::optional<engine::TimingReport> timing;
  if (a.time) {
    try {
      if (const std::unique_ptr<engine::Backend> timed = timed_backend(o, gpus)) {
        timing = engine::time_backend(*timed);
        text << timing->text();
      } else {
        text << "time: nothing to time: no plugin (--backend plugin:PATH) and no GPU for our kernel\n";
      }
    } catch (const std::exception& e) {
      text << "time: not timed: " << e.what() << "\n";
    }
  }
  bool written = true;
  if (!a.json.empty()) {
    nlohmann::ordered_json opts;
    opts["op"] = std::string(o.op->name);
    opts["seed"] = o.seed;
    opts["scale"] = o.scale;
    opts["backend"] = a.backend;
    opts["jobs"] = o.jobs;
    opts["gpus"] = gpus.names;
    opts["work_budget"] = o.work_budget;
    opts["gpu_work_budget"] = o.gpu_work_budget;
    opts["manifest"] = o.manifest.string();
    nlohmann::ordered_json report = json_report(results, wall, opts);
    report["coverage"] = coverage_json(results);
    if (timing) report["time"] = engine::timing_json(*timing, *o.op);
    written = write_report(a.json, report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n") && written;
  }
  if (!a.junit.empty()) written = write_report(a.junit, junit_report(results, wall, a.junit_every_case)) && written;
  if (!written) return kUsage;
  switch (verdict(results)) {
    case Verdict::Passed: return kPass;
    case Verdict::NothingJudged: return kNothingJudged;
    case Verdict::Failed: break;
  }
  return kFail;
}

}  // namespace

void register_check(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Run the conformance suites on what this machine has (the main job)");
  auto a = std::make_shared<CheckArgs>();
  cmd->add_option("--suites", a->suites, "Suites to run, comma-separated: " + suite_names() + "; default every one not so marked, see --list")->delimiter(',');
  cmd->add_option("--cases", a->counts, "Case count of a suite, SUITE=N (repeatable)");
  cmd->add_option("--scale", a->scale, "Multiply the default case counts")->check(finite_positive_at_most(kMaxScale));
  add_seed_option(cmd, a->seed, "Seed of the random cases (same seed, same cases on every machine)");
  cmd->add_option("--backend", a->backend,
                  "cpu, cuda, all (default: all that this machine has), or plugin:PATH (a kernel behind "
                  "include/kda_harness/plugin.h: the backend suites judge it)");
  a->op_option = add_op_option(cmd, a->op);
  cmd->add_option("--gpus", a->gpus, "GPUs to use (comma-separated device ids; default every usable one)")->delimiter(',');
  cmd->add_option("--jobs,-j", a->jobs, "Worker threads (default: hardware threads)");
  cmd->add_option("--work-budget", a->work_budget, "Reference work per random CPU rollout")
      ->check(finite_positive_at_most(kMaxWorkBudget));
  cmd->add_option("--gpu-work-budget", a->gpu_work_budget, "Reference work per random GPU rollout")
      ->check(finite_positive_at_most(kMaxWorkBudget));
  cmd->add_option("--manifest", a->manifest, "The golden set's manifest (default: $KDA_GOLDEN_MANIFEST, ./golden/manifest.json, or the "
                  "golden/ beside the build folder)");
  cmd->add_option("--json", a->json, "Write a JSON report to this file (- for stdout)");
  cmd->add_option("--junit", a->junit,
                  "Write a JUnit XML report to this file for CI dashboards (- for stdout): per suite a testcase per "
                  "failed case and one for the cases that passed");
  cmd->add_flag("--junit-every-case", a->junit_every_case, "With --junit, one testcase per case, passed ones too");
  cmd->add_flag("--no-progress", a->no_progress, "No progress on stderr");
  cmd->add_flag("--time", a->time,
                "After the verdict, time the judged backend's step per shape class (the benchmark's: decode, short and "
                "long ring, B 1 and 64, fitted into its envelope): the median of many runs (CUDA events on a GPU, a "
                "steady clock on the CPU) and its fraction of a plain copy's bandwidth, by the benchmark's bytes "
                "model; timing decides nothing");
  cmd->add_flag("--no-shrink", a->no_shrink,
                "Do not shrink failures (by default the first failing rollout of each cause is rerun smaller, up to "
                "100 reruns or 30 s, and the smallest config line that still fails is printed beside it; never with --isolate)");
  cmd->add_option("--progress-every", a->progress_every,
                  "When stderr is not a terminal, one progress line every this many seconds (default 5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--list", a->list, "List the suites and their default case counts");
  cmd->add_flag("--isolate", a->isolate,
                "With --backend plugin:PATH, run every case of the backend suites in a child process: a crash, "
                "abort, device fault or hang (--case-timeout) fails that case with its replay line and the run goes on");
  cmd->add_option("--case-timeout", a->case_timeout,
                  "With --isolate, seconds a case may run before it counts as hung and is killed (default: no limit)")
      ->check(finite_non_negative_at_most(1e9));
  cmd->add_option("--restrict", a->restriction,
                  "Sample the backend suites only here, inside the backend's envelope, claiming nothing about what "
                  "it refuses (the envelope suite still tests the declared envelope): items K=128, K=32..128, V=..64, "
                  "L=8, act=bf16, state=f32|bf16, ring=.., out=.., idx=i32, compact");
  cmd->add_option("--model", a->model,
                  "Draw the kernel suites at one model's per-GPU shapes, NAME[:tp=N] (--list-models): its heads, "
                  "decode batches B 1..256 with padding, slots above B");
  cmd->add_option("--pin", a->pin,
                  "Config keys every drawn case of the backend suites takes, for a backend that serves one mode of "
                  "its operator: 'T=1 vfirst=1 gik=1 bsig=1' (each case drawn as without it, then its keys set)");
  cmd->add_flag("--list-models", a->list_models, "List the models --model takes, their heads and sources");
  cmd->add_flag("--probe-invalid-indices", a->probe_invalid_indices,
                "Where the backend claims nothing of runtime-invalid rows (invalid_rows none: SGLang's contract), "
                "feed them anyway in the kernel suite's one case in five and report, without failing, what it did "
                "(best with --isolate: a kernel that does not check may crash)");
  cmd->add_flag("--stats", a->stats,
                "Print the distribution of the cases the random backend suites would draw (K, V, head layouts, "
                "flags, dtypes) inside the backend's envelope, and run nothing");
  cmd->callback([a] { set_exit_code(run_check(*a)); });
}

}  // namespace kda::cli
