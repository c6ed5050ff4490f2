#include "tools/check_suites.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "engine/backend_cases.hpp"
#include "engine/cuda_backend.hpp"
#include "engine/refusal.hpp"
#include "engine/restriction.hpp"
#include "golden/golden_verify.hpp"
#include "engine/reference_backend.hpp"
#include "engine/replayssm_sample_space.hpp"
#include "engine/run_case.hpp"
#include "engine/truth_oracle.hpp"
#include "reference/replayssm_step.hpp"
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

// Where the backend suites draw: the backend's envelope narrowed by the user's restriction.
struct Draws {
  uint64_t seed = 1;
  double work_budget = 2e7;
  engine::Envelope restriction;
};

// Case i of a backend suite drawn from `seed` inside the backend's envelope narrowed by the
// restriction; nullopt when no case fits.
std::optional<CaseConfig> backend_case(const engine::Backend& b, const Draws& d, uint64_t seed, int64_t i) {
  try {
    return engine::draw_backend_case(seed, static_cast<uint64_t>(i), engine::limits::check_cases(d.work_budget),
                                     engine::narrowed(b.envelope(), d.restriction));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// Runs `run` on case i of a backend suite drawn from `seed` inside the backend's envelope
// narrowed by the restriction (engine/backend_cases.hpp); a region no case fits fails the
// case, saying so.
template <class Run>
engine::CaseReport in_envelope(engine::Backend& b, const Draws& d, uint64_t seed, int64_t i, const Run& run) {
  const engine::Envelope region = engine::narrowed(b.envelope(), d.restriction);
  CaseConfig c;
  try {
    c = engine::draw_backend_case(seed, static_cast<uint64_t>(i), engine::limits::check_cases(d.work_budget), region);
  } catch (const std::invalid_argument& e) {
    return no_run(fmt::format("case {} of seed {}", i, seed), std::string(e.what()) + ": " + region.describe());
  }
  return run(c);
}

// One kernel case in kInvalidRowEvery makes one row runtime-invalid at one token: its cursor
// past the ring (a live row, where the operator reads cursors) or its slot past the pool.
// The backend must refuse the call and write nothing, or flag the row in its status and touch
// nothing of it (engine::run_vs_reference); the reference sees the row as padding.
constexpr int64_t kInvalidRowEvery = 5;
struct InvalidRow {
  engine::StepMutator mutate;
  std::string what;
};
InvalidRow invalid_row(const engine::OperatorDescription& op, const CaseConfig& c, int64_t n) {
  const int64_t token = n % c.steps, row = n % c.B;
  const bool reads_cursors = engine::takes(op, "write_pos");
  InvalidRow bad;
  bad.what = reads_cursors ? fmt::format("at token {}, row {}'s cursor set to {} (past the ring), or its slot to {} "
                                         "(past the pool) if it is a padding row",
                                         token, row, c.L, c.slots)
                           : fmt::format("at token {}, row {}'s slot set to {} (past the pool)", token, row, c.slots);
  bad.mutate = [token, row, reads_cursors, L = c.L, slots = c.slots](CaseTensors& t, int64_t at) {
    if (at != token) return;
    if (reads_cursors && t.ssm_state_indices.get_linear(row) >= 0)
      t.write_pos.set_linear(row, static_cast<double>(L));
    else
      t.ssm_state_indices.set_linear(row, static_cast<double>(slots));
  };
  return bad;
}

// Case i of a rollout suite drawn from `seed`.
CaseConfig check_case(uint64_t seed, int64_t i, double work_budget) {
  return engine::draw_case(seed, static_cast<uint64_t>(i), engine::limits::check_cases(work_budget));
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
SuiteSpec golden_suite(const SuiteInfo& info, const golden::LoadedSet& set, const engine::OperatorDescription& op,
                       const BackendMaker& backend, const std::string& backend_name) {
  SuiteSpec s;
  s.name = info.name;
  s.backend = info.backend;
  s.what = info.what;
  std::vector<std::size_t> cases;
  for (std::size_t i = 0; i < set.cases.size(); ++i)
    if (!set.cases[i].problem.empty() || set.cases[i].entry.op == op.name) cases.push_back(i);
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

// Every kOutsideEvery-th case of the kernel suite is a call just outside the envelope.
constexpr int64_t kOutsideEvery = 10;

// A call just outside the backend's envelope (the i-th way out of it from config c): the
// backend must refuse it and write nothing.
engine::CaseReport outside_envelope_case(engine::Backend& b, const CaseConfig& c, int64_t i) {
  const std::vector<CaseConfig> outside = b.envelope().just_outside(c);
  if (outside.empty()) return no_run("the envelope is the whole contract: nothing lies outside it", "");
  const CaseConfig& x = outside[static_cast<std::size_t>(i) % outside.size()];
  CaseTensors t = materialize(b.op().fit_case(x));
  const std::string why = engine::refusal_problem(b, t.args());
  engine::CaseReport o = engine::start_report(x, b, "reference");
  o.outside_envelope = b.envelope().excludes(x);
  if (!why.empty()) o.failure = fmt::format("outside the envelope ({}), token 0: {}", o.outside_envelope, why);
  return o;
}

// The check that replays a backend suite up to case i (a case a config line cannot say).
std::string suite_check_line(const std::string& backend, const std::string& suite, uint64_t seed, int64_t i,
                             const std::string& restrict_flag, const std::string& what = "") {
  return fmt::format("kda-harness check --backend {} --suites {} --seed {} --cases {}={}{} (case {}{})", backend, suite,
                     seed, suite, i + 1, restrict_flag, i, what.empty() ? "" : ": " + what);
}
std::string kernel_check_line(const std::string& backend, uint64_t seed, int64_t i, const std::string& restrict_flag,
                              const std::string& what) {
  return suite_check_line(backend, "kernel", seed, i, restrict_flag, what);
}

// The seed each random backend suite draws its cases from.
constexpr uint64_t kKernelSeed = 2, kKernelTruthSeed = 3, kEnvelopeSeed = 4;

}  // namespace

const std::vector<SuiteInfo>& suite_catalog() {
  static const std::vector<SuiteInfo> suites = {
      {"contract", "cpu", "random valid calls (B up to 1024, K and V from 1) accepted with their dims; sets of one "
                          "or two error inputs raise the earliest check's exact catalog error", 40000},
      {"contract-catalogue", "cpu", "the error inputs (every check, every variant, sets of up to four) over random "
                                    "valid calls of the contract tests' ranges", 100000},
      {"reference", "cpu", "the operator's CPU reference (kernel rounding points) vs the float64 plain recurrence "
                           "over random rollouts, within the dtype-derived bounds", 8000},
      {"pure-double", "cpu", "float64 ReplaySSM model vs the float64 plain recurrence (1e-10) over random rollouts "
                             "(of the operator's cases: L = 1 for the plain packed decode)",
       5000},
      {"golden", "cpu", "the golden set (hashes, then every case) on the CPU reference", -1},
      {"kernel", "cuda", "the backend (CUDA kernel or plugin) vs the CPU reference step by step: outputs, checkpoints, "
                         "rings, row status, footprint, guards, within its profile's bounds; one case in five gives a row an "
                         "invalid cursor or slot, which must be refused (nothing written) or flagged; one in ten is a call just "
                         "outside the backend's envelope, which must be refused", 2000},
      {"kernel-truth", "cuda", "the backend vs the float64 plain recurrence over random rollouts", 1000},
      {"golden-kernel", "cuda", "the golden set on the backend (cases outside its envelope must be refused)", -1},
      {"envelope", "cuda", "calls just outside the backend's declared envelope are refused, nothing written", 200},
  };
  return suites;
}

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
  for (const SuiteInfo& info : suite_catalog()) {
    if (!o.suites.empty() && !o.suites.count(info.name)) continue;
    const bool cuda = info.backend == "cuda";  // a backend suite
    if (!cuda && !o.cpu) continue;
    int64_t count = info.default_cases < 0 ? -1 : static_cast<int64_t>(std::llround(info.default_cases * o.scale));
    if (auto it = o.counts.find(info.name); it != o.counts.end()) count = it->second;
    SuiteSpec s;
    if (info.name == "golden") {
      s = golden_suite(info, golden, op, [&op](int) { return engine::make_reference_backend(reference::Rounding::Kernel, op); },
                       "reference");
    } else if (info.name == "golden-kernel") {
      s = golden_suite(info, golden, op, judged, judged_name);
    } else {
      s.name = info.name;
      s.backend = info.backend;
      s.what = info.what;
      s.cases = count;
      const uint64_t seed = o.seed;
      const double budget = o.work_budget;
      const Draws draws{seed, o.gpu_work_budget, o.restriction};
      const std::string restrict_flag = o.restriction_text.empty() ? "" : fmt::format(" --restrict '{}'", o.restriction_text);
      if (info.name == "contract") {
        s.run = [seed, &op](int64_t i, int) {
          return from_contract_case(
              contract_sweep_case(op, seed, static_cast<uint64_t>(i), engine::limits::sweep_calls(), 6, 2),
                                    fmt::format("kda-harness check --suites contract --seed {} (sweep case {})", seed, i));
        };
      } else if (info.name == "contract-catalogue") {
        s.run = [seed, &op](int64_t i, int) {
          return from_contract_case(
              contract_sweep_case(op, seed + 1, static_cast<uint64_t>(i), engine::limits::contract_calls(), 4, 4),
              fmt::format("kda-harness check --suites contract-catalogue --seed {} (case {})", seed, i));
        };
      } else if (info.name == "reference") {
        s.run = [seed, budget, &op](int64_t i, int) {
          const auto reference = engine::make_reference_backend(reference::Rounding::Kernel, op);
          return engine::run_vs_truth(check_case(seed, i, budget), *reference);
        };
      } else if (info.name == "pure-double") {
        s.run = [seed, budget, &op](int64_t i, int) {
          engine::CaseReport r = engine::run_model_vs_truth(op.fit_case(check_case(seed + 1, i, budget)), op);
          r.op = std::string(op.name);
          return r;
        };
      } else if (info.name == "kernel") {
        s.run = [seed, draws, judged, spec = judged_spec, restrict_flag](int64_t i, int w) {
          const auto b = judged(w);
          return in_envelope(*b, draws, seed + kKernelSeed, i, [&](const CaseConfig& c) {
            // A backend that computes a call it declares it refuses dies here too, early.
            if (i % kOutsideEvery == kOutsideEvery - 2 && !b->envelope().just_outside(c).empty())
              return outside_envelope_case(*b, c, i / kOutsideEvery);
            if (i % kInvalidRowEvery != kInvalidRowEvery - 1) return engine::run_vs_reference(c, *b);
            const InvalidRow bad = invalid_row(b->op(), c, i / kInvalidRowEvery);
            engine::CaseReport o = engine::run_vs_reference(c, *b, bad.mutate);
            o.replay_line = kernel_check_line(spec, seed, i, restrict_flag, bad.what);
            o.note = "this case: " + bad.what;
            return o;
          });
        };
        s.replay = [seed, draws, judged, spec = judged_spec, restrict_flag](int64_t i) {
          const auto b = judged(0);
          const std::optional<CaseConfig> c = backend_case(*b, draws, seed + kKernelSeed, i);
          if (!c) return kernel_check_line(spec, seed, i, restrict_flag, "no case fits");
          if (i % kOutsideEvery == kOutsideEvery - 2) {
            const std::vector<CaseConfig> outside = b->envelope().just_outside(*c);
            if (!outside.empty())
              return engine::start_report(outside[static_cast<std::size_t>(i / kOutsideEvery) % outside.size()], *b,
                                          "reference").replay();
          }
          if (i % kInvalidRowEvery == kInvalidRowEvery - 1)
            return kernel_check_line(spec, seed, i, restrict_flag, invalid_row(b->op(), *c, i / kInvalidRowEvery).what);
          return engine::start_report(b->op().fit_case(*c), *b, "reference").replay();
        };
      } else if (info.name == "kernel-truth") {
        s.run = [seed, draws, judged](int64_t i, int w) {
          const auto b = judged(w);
          return in_envelope(*b, draws, seed + kKernelTruthSeed, i,
                             [&](const CaseConfig& c) { return engine::run_vs_truth(c, *b); });
        };
        s.replay = [seed, draws, judged, spec = judged_spec, restrict_flag](int64_t i) {
          const auto b = judged(0);
          const std::optional<CaseConfig> c = backend_case(*b, draws, seed + kKernelTruthSeed, i);
          if (!c) return suite_check_line(spec, "kernel-truth", seed, i, restrict_flag);
          return engine::start_report(b->op().fit_case(*c), *b, "truth").replay();
        };
      } else if (info.name == "envelope") {
        s.run = [seed, draws, judged](int64_t i, int w) {
          const auto b = judged(w);
          return in_envelope(*b, draws, seed + kEnvelopeSeed, i,
                             [&](const CaseConfig& c) { return outside_envelope_case(*b, c, i); });
        };
        s.replay = [seed, draws, judged, spec = judged_spec, restrict_flag](int64_t i) {
          const auto b = judged(0);
          const std::optional<CaseConfig> c = backend_case(*b, draws, seed + kEnvelopeSeed, i);
          const std::vector<CaseConfig> outside = c ? b->envelope().just_outside(*c) : std::vector<CaseConfig>{};
          if (outside.empty()) return suite_check_line(spec, "envelope", seed, i, restrict_flag);
          return engine::start_report(outside[static_cast<std::size_t>(i) % outside.size()], *b, "reference").replay();
        };
      }
    }
    if (cuda && !gpu_skip.empty()) s.skip_reason = gpu_skip;
    if (cuda) s.backend = judged_name;
    s.jobs = o.jobs;
    out.push_back(std::move(s));
  }
  return out;
}

std::string backend_suite_stats(const CheckOptions& o, const engine::Envelope& envelope) {
  const engine::Envelope region = engine::narrowed(envelope, o.restriction);
  std::string out;
  for (const auto& [name, offset] : {std::pair<std::string, uint64_t>{"kernel", kKernelSeed}, {"kernel-truth", kKernelTruthSeed}}) {
    if (!o.suites.empty() && !o.suites.count(name)) continue;
    int64_t count = 0;
    for (const SuiteInfo& info : suite_catalog())
      if (info.name == name) count = static_cast<int64_t>(std::llround(info.default_cases * o.scale));
    if (auto it = o.counts.find(name); it != o.counts.end()) count = it->second;
    engine::CaseStats stats;
    for (int64_t i = 0; i < count; ++i)
      stats.add(o.op->fit_case(engine::draw_backend_case(o.seed + offset, static_cast<uint64_t>(i),
                                                         engine::limits::check_cases(o.gpu_work_budget), region)));
    out += fmt::format("{} (seed {}): {}", name, o.seed + offset, stats.describe());
  }
  return out;
}

}  // namespace kda::cli
