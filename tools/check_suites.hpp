// The suites of `kda-harness check` (engine/driver/suites.hpp's table: names, default case counts,
// seeds) made runnable on this machine. The CPU defaults are sized to finish in about a minute on a laptop-class CPU (about 50 s on the
// 2-core development machine); the GPU suites' (which run only where a GPU is, on hosts
// with many cores) take about half a minute on one H200 with 16 cores.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/backends/backend.hpp"
#include "engine/backends/gpu_probe.hpp"
#include "engine/driver/defaults.hpp"
#include "engine/driver/suites.hpp"
#include "golden/golden_set.hpp"
#include "tools/check_runner.hpp"

namespace kda::cli {

struct CheckOptions {
  const engine::OperatorDescription* op = &engine::default_operator();  // the operator every suite judges
  std::set<std::string> suites;           // empty: every suite of the default check
  std::map<std::string, int64_t> counts;  // per-suite case counts (overrides the defaults)
  double scale = 1.0;                     // multiplies the default counts
  uint64_t seed = 1;
  bool cpu = true, cuda = true;           // backends to run
  std::string plugin;                     // "plugin:PATH": the backend suites judge it (no CPU suites)
  bool cuda_required = false;             // --backend cuda: a missing GPU is a failure, not a skip
  std::vector<int> gpus;                  // empty: every usable GPU
  int jobs = 1;
  double work_budget = 3e7;               // reference work per random rollout (the operator's sample_case)
  double gpu_work_budget = 2e7;
  std::filesystem::path manifest;         // the golden set
  // Where the backend suites sample, inside the backend's envelope (engine/description/restriction.hpp);
  // the text is what --restrict was given, for replay lines.
  engine::Envelope restriction;
  std::string restriction_text;
  bool probe_invalid_rows = false;        // --probe-invalid-indices (engine::SuiteDraws)
  std::optional<engine::ProductionShape> model;  // --model
  std::string model_text;
  std::string pin;                        // --pin (engine::SuiteDraws)
};

// The suites to run, in order; GPU suites are skipped (with the probe's reason) when no GPU
// can be used. `golden` is the loaded set (shared by the two golden suites).
// The backend a worker judges its case on (the backend suites make one per worker and lend
// it to each of the worker's cases).
using BackendMaker = std::function<std::unique_ptr<engine::Backend>(int worker)>;

std::vector<SuiteSpec> build_suites(const CheckOptions& options, const engine::GpuProbe& gpus, const golden::LoadedSet& golden);

// The distribution of the cases the random backend suites (kernel, kernel-truth) of `options`
// draw inside `envelope` narrowed by the options' restriction (engine/driver/backend_cases.hpp), one
// block per suite; nothing is run.
std::string backend_suite_stats(const CheckOptions& options, const engine::Envelope& envelope);

}  // namespace kda::cli
