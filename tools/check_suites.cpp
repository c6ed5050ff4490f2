#include "tools/check_suites.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "engine/backends/cuda_backend.hpp"
#include "engine/backends/reference_backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/restriction.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/reference_vs_truth.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/driver/suites.hpp"
#include "golden/golden_verify.hpp"
#include "reference/rounding.hpp"
#include "tools/contract_sweep.hpp"

namespace kda::cli {
namespace {

// A case that ran nothing: `what` says what it was; it fails with `failure` when given.
engine::CaseReport no_run(std::string what, std::string failure) {
  engine::CaseReport r;
  r.what = std::move(what);
  r.failure = std::move(failure);
  return r;
}

// Case i of a CPU rollout suite drawn from `seed`.
CaseConfig check_case(const engine::OperatorDescription& op, uint64_t seed, int64_t i, double work_budget) {
  return engine::draw_case(op, seed, static_cast<uint64_t>(i), engine::limits::check_cases(work_budget));
}

engine::CaseReport from_contract_case(const SweepResult& r, std::string replay) {
  engine::CaseReport c = no_run(r.pass ? r.config : r.config + ": " + r.detail, r.pass ? "" : r.detail);
  c.against = "contract";
  c.replay_line = std::move(replay);
  return c;
}

// A golden suite over the loaded set's cases of the operator (and the unreadable ones); one
// extra case reports set-level problems, or fails a set that holds no case of the operator
// (a suite that verified nothing is not a pass).
SuiteSpec golden_suite(const engine::SuiteInfo& info, const golden::LoadedSet& set, const engine::OperatorDescription& op,
                       const BackendMaker& backend, const std::string& backend_name) {
  SuiteSpec s;
  s.name = info.name;
  s.what = info.what;
  std::vector<std::size_t> cases;
  for (std::size_t i = 0; i < set.cases.size(); ++i)
    if (!set.cases[i].problem.empty() || set.cases[i].entry.op == op.name) cases.push_back(i);
  // An operator that declares no golden cases has nothing to verify: the suite is skipped,
  // saying so (never counted as passed); one that declares some and finds none fails.
  if (cases.empty() && set.problems.empty() && op.golden_cases == nullptr) {
    s.skip_reason = std::string(op.name) + " declares no golden cases";
    s.cases = 0;
    s.run = [](int64_t, int) { return engine::CaseReport{}; };
    return s;
  }
  const bool set_problems = !set.problems.empty() || cases.empty();
  s.cases = static_cast<int64_t>(cases.size()) + (set_problems ? 1 : 0);
  s.run = [&set, cases, backend, backend_name, op_name = std::string(op.name)](int64_t i, int worker) {
    if (i == static_cast<int64_t>(cases.size())) {
      const std::string problems =
          set.problems.empty() ? "golden set: nothing verified: the manifest lists no case of " + op_name
                               : "golden set: " + fmt::format("{}", fmt::join(set.problems, "; "));
      return no_run(problems, problems);
    }
    const golden::LoadedCase& lc = set.cases[cases[static_cast<std::size_t>(i)]];
    if (!lc.problem.empty()) {
      const std::string problem = fmt::format("golden case {}: {}", lc.entry.name, lc.problem);
      return no_run(problem, problem);
    }
    const std::unique_ptr<engine::Backend> b = backend(worker);
    engine::CaseReport r = golden::verify_case(lc.c, *b);
    // The spec makes the backend again (a plugin's path); its name may not.
    r.replay_line = fmt::format("kda-harness case {} --backend {}", lc.path.string(),
                                r.backend_spec.empty() ? backend_name : r.backend_spec);
    return r;
  };
  s.replay = [&set, cases, backend_name](int64_t i) {
    if (i >= static_cast<int64_t>(cases.size())) return std::string("the golden set's own problems");
    return fmt::format("kda-harness case {} --backend {}", set.cases[cases[static_cast<std::size_t>(i)]].path.string(),
                       backend_name);
  };
  return s;
}

// A worker's backend, lent to one case at a time.
class LentBackend final : public engine::Backend {
 public:
  explicit LentBackend(std::shared_ptr<engine::Backend> b) : b_(std::move(b)) {}
  std::string name() const override { return b_->name(); }
  std::string spec() const override { return b_->spec(); }
  const engine::Envelope& envelope() const override { return b_->envelope(); }
  engine::Profile profile() const override { return b_->profile(); }
  const engine::OperatorDescription& op() const override { return b_->op(); }
  void step(const StepArgs& host) override { b_->step(host); }
  bool start_step(const StepArgs& host) override { return b_->start_step(host); }
  void finish_step() override { b_->finish_step(); }
  std::optional<std::vector<int32_t>> row_status() override { return b_->row_status(); }
  bool guards_intact() const override { return b_->guards_intact(); }

 private:
  std::shared_ptr<engine::Backend> b_;
};

// One backend per worker, made on its first case: a CUDA backend's stream and device
// buffers serve all the worker's cases (every step uploads all its arguments; a buffer
// taken for another tensor gets its guards filled again), instead of being made and freed
// per case.
BackendMaker one_per_worker(BackendMaker make) {
  struct Made {
    std::mutex lock;
    std::map<int, std::shared_ptr<engine::Backend>> by_worker;
  };
  auto made = std::make_shared<Made>();
  return [made, make = std::move(make)](int worker) -> std::unique_ptr<engine::Backend> {
    std::shared_ptr<engine::Backend> b;
    {
      const std::lock_guard<std::mutex> hold(made->lock);
      b = made->by_worker[worker];
    }
    if (!b) {
      b = make(worker);
      const std::lock_guard<std::mutex> hold(made->lock);
      made->by_worker[worker] = b;
    }
    return std::make_unique<LentBackend>(b);
  };
}

// The check that replays a backend suite up to case i (a case a config line cannot say).
std::string suite_check_line(const std::string& backend, std::string_view suite, uint64_t seed, int64_t i,
                             const std::string& restrict_flag, const std::string& what = "") {
  return fmt::format("kda-harness check --backend {} --suites {} --seed {} --cases {}={}{} (case {}{})", backend, suite,
                     seed, suite, i + 1, restrict_flag, i, what.empty() ? "" : ": " + what);
}

// A drawn backend suite (engine/driver/suites.hpp's runner) on the judged backend. Its replay line is
// the `kda-harness case` line of the case's call where a config line says it, else the check
// that reruns the suite up to it.
void drawn_suite(SuiteSpec& s, const engine::SuiteInfo& info, const engine::SuiteDraws& draws, const BackendMaker& judged,
                 const std::string& spec, const std::string& restrict_flag) {
  const auto replay = [&info, draws, spec, restrict_flag](const engine::Backend& b, int64_t i) {
    using Kind = engine::PlannedCase::Kind;
    const engine::PlannedCase p = engine::plan_suite_case(info, b, draws, i);
    switch (p.kind) {
      case Kind::Rollout:
        return engine::start_report(p.config, b, info.name == "kernel-truth" ? "truth" : "reference").replay();
      case Kind::OutsideEnvelope:
        return engine::start_report(p.config, b, "reference").replay();
      case Kind::NoCase:
        return suite_check_line(spec, info.name, draws.seed, i, restrict_flag, info.name == "kernel" ? "no case fits" : "");
      default:
        return suite_check_line(spec, info.name, draws.seed, i, restrict_flag, p.call);
    }
  };
  s.run = [&info, draws, judged, replay](int64_t i, int w) {
    const auto b = judged(w);
    engine::CaseReport r = engine::run_suite_case(info, *b, draws, i);
    const std::string line = replay(*b, i);
    if (line != r.replay()) r.replay_line = line;
    return r;
  };
  s.replay = [judged, replay](int64_t i) { return replay(*judged(0), i); };
}

}  // namespace

std::vector<SuiteSpec> build_suites(const CheckOptions& o, const engine::GpuProbe& gpus, const golden::LoadedSet& golden) {
  std::vector<SuiteSpec> out;
  std::vector<int> devices = o.gpus.empty() ? gpus.devices : o.gpus;
  std::string gpu_skip;
  const engine::OperatorDescription& op = *o.op;
  BackendMaker judged;  // the backend the backend suites judge, per worker
  std::string judged_name, judged_spec;
  if (!o.plugin.empty()) {
    judged = one_per_worker([spec = o.plugin, &op](int) { return engine::make_backend(spec, op); });
    judged_name = judged(0)->name();
    judged_spec = o.plugin;
  } else {
    if (!o.cuda) gpu_skip = "not requested (--backend cpu)";
    else if (devices.empty()) gpu_skip = gpus.reason.empty() ? "no usable GPU" : gpus.reason;
    judged = one_per_worker([devices, &op](int w) { return engine::make_cuda_backend(devices[w % devices.size()], op); });
    judged_name = judged_spec = "cuda";
  }
  for (const engine::SuiteInfo& info : engine::suite_table()) {
    if (o.suites.empty() ? !info.in_default_check : !o.suites.count(std::string(info.name))) continue;
    const bool backend = info.judges_backend;
    if (!backend && !o.cpu) continue;
    int64_t count = info.default_cases < 0 ? -1
                                           : engine::defaults::default_case_count(
                                                 info.name, op, static_cast<int64_t>(std::llround(info.default_cases * o.scale)));
    if (auto it = o.counts.find(std::string(info.name)); it != o.counts.end()) count = it->second;
    SuiteSpec s;
    if (info.name == "golden") {
      s = golden_suite(info, golden, op, [&op](int) { return engine::make_reference_backend(reference::Rounding::Kernel, op); },
                       "reference");
      s.backend = "cpu";
    } else if (info.name == "golden-kernel") {
      s = golden_suite(info, golden, op, judged, judged_name);
    } else {
      s.name = info.name;
      s.backend = "cpu";
      s.what = info.what;
      s.cases = count;
      const uint64_t seed = o.seed, suite_seed = o.seed + info.seed_offset;
      const double budget = o.work_budget;
      const std::string restrict_flag =
          (o.restriction_text.empty() ? "" : fmt::format(" --restrict '{}'", o.restriction_text)) +
          (o.model_text.empty() ? "" : fmt::format(" --model {}", o.model_text)) +
          (o.pin.empty() ? "" : fmt::format(" --pin '{}'", o.pin)) +
          (o.probe_invalid_rows ? " --probe-invalid-indices" : "");
      if (info.drawn) {
        drawn_suite(s, info, engine::SuiteDraws{seed, o.gpu_work_budget, o.restriction, o.probe_invalid_rows, o.model, o.pin},
                    judged, judged_spec, restrict_flag);
      } else if (info.name == "contract") {
        s.run = [seed, suite_seed, &op](int64_t i, int) {
          return from_contract_case(
              contract_sweep_case(op, suite_seed, static_cast<uint64_t>(i), engine::limits::sweep_calls(), 6, 2),
                                    fmt::format("kda-harness check --suites contract --seed {} (sweep case {})", seed, i));
        };
      } else if (info.name == "contract-catalogue") {
        s.run = [seed, suite_seed, &op](int64_t i, int) {
          return from_contract_case(
              contract_sweep_case(op, suite_seed, static_cast<uint64_t>(i), engine::limits::contract_calls(), 4, 4),
              fmt::format("kda-harness check --suites contract-catalogue --seed {} (case {})", seed, i));
        };
      } else if (info.name == "reference") {
        s.run = [suite_seed, budget, &op](int64_t i, int) {
          const auto reference = engine::make_reference_backend(reference::Rounding::Kernel, op);
          return engine::run_vs_truth(check_case(op, suite_seed, i, budget), *reference);
        };
      } else if (info.name == "pure-double") {
        s.run = [suite_seed, budget, &op](int64_t i, int) {
          engine::CaseReport r =
              engine::reference_vs_truth(check_case(op, suite_seed, i, budget), engine::ReferenceModel::PureDouble, op);
          r.op = std::string(op.name);
          return r;
        };
      } else {
        throw std::logic_error(fmt::format("suite {} has no runner in the CLI", info.name));
      }
    }
    if (backend && !gpu_skip.empty()) s.skip_reason = gpu_skip;
    // A suite with nothing to test is skipped, saying why, never counted as passed.
    if (info.drawn && gpu_skip.empty() && count > 0) {
      engine::SuiteDraws draws;
      draws.seed = o.seed;
      const engine::PlannedCase first = engine::plan_suite_case(info, *judged(0), draws, 0);
      if (first.kind == engine::PlannedCase::Kind::NothingToTest) s.skip_reason = first.problem;
    }
    if (backend) s.backend = judged_name;
    s.jobs = o.jobs;
    out.push_back(std::move(s));
  }
  return out;
}

std::string backend_suite_stats(const CheckOptions& o, const engine::Envelope& envelope) {
  const engine::Envelope region = engine::narrowed(envelope, o.restriction);
  std::string out;
  for (const std::string_view name : {"kernel", "kernel-truth"}) {
    const engine::SuiteInfo& info = *engine::find_suite(name);
    if (!o.suites.empty() && !o.suites.count(std::string(name))) continue;
    int64_t count = static_cast<int64_t>(std::llround(info.default_cases * o.scale));
    if (auto it = o.counts.find(std::string(name)); it != o.counts.end()) count = it->second;
    engine::CaseStats stats;
    const uint64_t seed = o.seed + info.seed_offset;
    for (int64_t i = 0; i < count; ++i) {
      const CaseConfig drawn = engine::draw_backend_case(*o.op, seed, static_cast<uint64_t>(i),
                                                         engine::limits::check_cases(o.gpu_work_budget), region,
                                                         o.model ? &*o.model : nullptr);
      stats.add(o.op->fit_case(engine::pinned(*o.op, drawn, o.pin)));
    }
    out += fmt::format("{} (seed {}): {}", name, seed, stats.describe(*o.op));
  }
  return out;
}

}  // namespace kda::cli
