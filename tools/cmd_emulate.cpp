// `kda-harness emulate [--op OP] [--backend emulate:PROFILE[:directed]]... [--cases N]`: the error
// analysis checked against the CPU emulations of the rounding profiles (engine/backends/emulation_backend.hpp).
// Each emulation runs N drawn cases (one in four with adversarial values; nine in ten of the
// reference fuzzer's small shapes, one in ten of the check's shapes up to K = V = 128) through
// the suites a kernel of its profile faces (engine/driver/suites.hpp's names): step by step against
// the CPU reference ("kernel") and against the float64 recurrence ("kernel-truth"). Prints, per emulation, suite and
// quantity, the worst error / bound ratio and the case it came from. Exit 0 only when no
// emulation exceeds its bounds anywhere.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <thread>

#include "engine/backends/backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/run_case.hpp"
#include "tools/exit_code.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct EmulateArgs {
  std::string op = std::string(engine::default_operator().name);
  std::vector<std::string> backends = {"emulate:helion", "emulate:helion:directed", "emulate:triton",
                                       "emulate:triton:directed"};
  int64_t cases = 1000;
  uint64_t seed = 1;
  int jobs = 1;
};

CaseConfig emulation_case(const engine::OperatorDescription& op, uint64_t seed, int64_t i) {
  const engine::SampleLimits limits =
      i % 10 == 9 ? engine::limits::check_cases(2e6) : engine::limits::reference_fuzzing();
  return engine::draw_case(op, seed, static_cast<uint64_t>(i), limits);
}

// The worst ratio of one quantity over the cases, and where.
struct Worst {
  double ratio = 0;
  std::string replay;
  void fold(const reference::Comparison& c, const engine::CaseReport& r) {
    if (c.blocks == 0) return;
    const double x = c.ratio();
    if (!(x <= ratio)) {  // NaN is the worst
      ratio = x;
      replay = r.replay();
    }
  }
  void merge(const Worst& o) {
    if (!o.replay.empty() && !(o.ratio <= ratio)) *this = o;
  }
};

struct SuiteTally {
  std::map<std::string, Worst> quantities;  // out, state, d_ring, k_ring, g_ring
  int64_t failed = 0;
  std::string first_failure;
  int64_t first_failed_case = -1;
  void fold(const engine::CaseReport& r, int64_t i) {
    quantities["out"].fold(r.out, r);
    quantities["state"].fold(r.state, r);
    quantities["d_ring"].fold(r.d_ring, r);
    quantities["k_ring"].fold(r.k_ring, r);
    quantities["g_ring"].fold(r.g_ring, r);
    if (!r.pass()) {
      if (first_failed_case < 0 || i < first_failed_case) {
        first_failed_case = i;
        first_failure = r.headline() + "\n    replay: " + r.replay();
      }
      ++failed;
    }
  }
  void merge(const SuiteTally& o) {
    for (const auto& [q, w] : o.quantities) quantities[q].merge(w);
    failed += o.failed;
    if (o.first_failed_case >= 0 && (first_failed_case < 0 || o.first_failed_case < first_failed_case)) {
      first_failed_case = o.first_failed_case;
      first_failure = o.first_failure;
    }
  }
};

using Tallies = std::map<std::string, SuiteTally>;  // by suite: kernel, kernel-truth

// Cases 0..n-1 of one emulation on `jobs` threads, each case on fresh backends (an emulation's
// float64 shadow belongs to one case).
Tallies run_cases(const std::string& spec, const engine::OperatorDescription& op, const EmulateArgs& a) {
  std::atomic<int64_t> next{0};
  std::vector<Tallies> per_worker(static_cast<std::size_t>(std::max(1, a.jobs)));
  std::vector<std::exception_ptr> errors(per_worker.size());
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < per_worker.size(); ++w)
    workers.emplace_back([&, w] {
      try {
        for (int64_t i = next++; i < a.cases; i = next++) {
          const CaseConfig c = emulation_case(op, a.seed, i);
          per_worker[w]["kernel"].fold(engine::run_vs_reference(c, *engine::make_backend(spec, op)), i);
          per_worker[w]["kernel-truth"].fold(engine::run_vs_truth(c, *engine::make_backend(spec, op)), i);
        }
      } catch (...) {  // an emulation that refuses the operator: the command's error, not a crash
        errors[w] = std::current_exception();
        next = a.cases;
      }
    });
  for (std::thread& w : workers) w.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  Tallies all;
  for (const Tallies& t : per_worker)
    for (const auto& [suite, tally] : t) all[suite].merge(tally);
  return all;
}

int run_emulate(const EmulateArgs& a) {
  const engine::OperatorDescription& op = engine::find_operator(a.op);
  // A spec that names no emulation of the operator is refused here, with its reason.
  for (const std::string& spec : a.backends) engine::make_backend(spec, op);
  bool all_pass = true;
  fmt::print("{} cases per emulation, operator {}, seed {}: worst error / bound per quantity\n", a.cases, a.op, a.seed);
  std::fflush(stdout);
  for (const std::string& spec : a.backends) {
    for (const auto& [suite, t] : run_cases(spec, op, a)) {
      std::string cells;
      for (const auto& [q, w] : t.quantities)
        if (!w.replay.empty()) cells += fmt::format("  {} {:.3f}", q, w.ratio);
      fmt::print("{:<26} {:<12} {}{}\n", spec, suite, t.failed ? fmt::format("{} FAILED", t.failed) : "pass", cells);
      for (const auto& [q, w] : t.quantities)
        if (!w.replay.empty()) fmt::print("    worst {}: {}\n", q, w.replay);
      if (t.failed) {
        fmt::print("    first failure: {}\n", t.first_failure);
        all_pass = false;
      }
    }
    std::fflush(stdout);
  }
  return all_pass ? kPass : kFail;
}

}  // namespace

void register_emulate(CLI::App& app) {
  auto a = std::make_shared<EmulateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "emulate", "The error analysis against the CPU emulations of the rounding profiles (typical and worst-case "
                 "rounding): worst error / bound per emulation, suite and quantity");
  add_op_option(cmd, a->op);
  cmd->add_option("--backend", a->backends, "emulate:PROFILE[:directed] (repeatable; default: all four)");
  cmd->add_option("--cases", a->cases, "Cases per emulation")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "Seed of the drawn cases");
  cmd->add_option("--jobs,-j", a->jobs, "Threads")->check(CLI::PositiveNumber);
  cmd->callback([a] { set_exit_code(run_emulate(*a)); });
}

}  // namespace kda::cli
