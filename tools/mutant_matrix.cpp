#include "tools/mutant_matrix.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <stdexcept>
#include <thread>

#include "engine/driver/fatal_signal.hpp"
#include "engine/backends/gpu_probe.hpp"
#include "tools/check_suites.hpp"

namespace kda::cli {
namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

SuiteRun run_until_kill(const SuiteSpec& spec) {
  SuiteRun r;
  r.suite = spec.name;
  r.skipped = !spec.skip_reason.empty();
  const double start = thread_cpu_seconds();
  for (int64_t i = 0; i < spec.cases; ++i) {
    engine::CaseReport o;
    try {
      const engine::CaseInFlight flight(spec.replay ? spec.replay(i) : spec.name);
      o = spec.run(i, 0);
    } catch (const std::exception& e) {
      o.what = o.failure = std::string("exception: ") + e.what();
    }
    ++r.cases;
    if (!o.pass()) {
      r.killed = true;
      r.message = o.headline().empty() ? o.summary() : o.headline();
      r.replay = o.replay();
      break;
    }
  }
  r.cpu_seconds = thread_cpu_seconds() - start;
  return r;
}

PluginRun judge(const std::filesystem::path& plugin, bool control, const golden::LoadedSet& golden,
                const MatrixOptions& mo) {
  PluginRun run;
  run.path = plugin;
  run.control = control;
  run.name = plugin.filename().string();
  CheckOptions o;
  o.op = mo.op;
  o.plugin = "plugin:" + plugin.string();
  o.cpu = o.cuda = false;
  o.seed = mo.seed;
  o.gpu_work_budget = mo.gpu_work_budget;
  o.model = mo.model;
  if (mo.model) o.model_text = mo.model->model;
  for (const std::string& s : mo.suites) {
    o.suites.insert(s);
    if (s != "golden-kernel") o.counts[s] = mo.cases;
  }
  try {
    run.name = engine::make_backend(o.plugin, *o.op)->name();
    if (run.name.rfind("plugin:", 0) == 0) run.name = run.name.substr(7);
    for (const SuiteSpec& spec : build_suites(o, engine::GpuProbe{}, golden)) run.suites.push_back(run_until_kill(spec));
  } catch (const std::exception& e) {
    for (const std::string& s : mo.suites) {
      SuiteRun r;
      r.suite = s;
      r.error = e.what();
      run.suites.push_back(r);
    }
  }
  return run;
}

}  // namespace

PluginFamily plugin_family(const std::string& backend, std::string_view op) {
  // Where plugins/CMakeLists.txt builds each family: the plugins of one backend share a base
  // name, and each operator's are named after it.
  std::string base;
  if (backend == "cpu") base = "libkda_cpu_example_";
  else if (backend == "cuda") base = "libkda_cuda_kernel_";
  else throw std::invalid_argument("no plugins of --backend " + backend + " (there are: cpu, cuda)");
  base += op;
  return {base + ".so", base + "_mutant_"};
}

FoundPlugins find_plugins(const std::filesystem::path& dir, const PluginFamily& family) {
  FoundPlugins f;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == family.control) f.control = entry.path();
    else if (name.rfind(family.mutant_prefix, 0) == 0 && entry.path().extension() == ".so") f.mutants.push_back(entry.path());
  }
  std::sort(f.mutants.begin(), f.mutants.end());
  return f;
}

const std::vector<std::string>& mutant_suites() {
  // The backend suites of the default check, in the order it runs them (engine/driver/suites.hpp).
  static const std::vector<std::string> suites = [] {
    std::vector<std::string> s;
    for (const engine::SuiteInfo& info : engine::suite_table())
      if (info.judges_backend && info.in_default_check) s.push_back(std::string(info.name));
    return s;
  }();
  return suites;
}

const SuiteRun* PluginRun::first_kill() const {
  for (const SuiteRun& s : suites)
    if (s.killed) return &s;
  return nullptr;
}

double PluginRun::cpu_seconds_to_kill() const {
  double t = 0;
  for (const SuiteRun& s : suites) {
    t += s.cpu_seconds;
    if (s.killed) break;
  }
  return t;
}

int64_t PluginRun::cases_to_kill() const {
  int64_t n = 0;
  for (const SuiteRun& s : suites) {
    n += s.cases;
    if (s.killed) break;
  }
  return n;
}

std::vector<PluginRun> run_matrix(const std::vector<std::filesystem::path>& plugins, const std::filesystem::path& control,
                                  const golden::LoadedSet& golden, const MatrixOptions& options) {
  std::vector<std::filesystem::path> all;
  if (!control.empty()) all.push_back(control);
  all.insert(all.end(), plugins.begin(), plugins.end());
  std::vector<PluginRun> runs(all.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < all.size(); i = next++) runs[i] = judge(all[i], all[i] == control, golden, options);
  };
  std::vector<std::thread> threads;
  const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(all.size())));
  for (int w = 0; w < jobs; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return runs;
}

bool names_place(const std::string& m) {
  static const std::regex tensor(R"(\b(out|initial_state|d_cache|k_cache|g_cache)\b)"), row(R"(\b(row|slot) -?[0-9]+)"),
      head(R"(\b(head|hv) [0-9]+)"), step(R"(\b(token|step) [0-9]+)");
  return std::regex_search(m, tensor) && std::regex_search(m, row) && std::regex_search(m, head) &&
         std::regex_search(m, step);
}

}  // namespace kda::cli
