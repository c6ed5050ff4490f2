// The harness judging itself: plugins with planted bugs ("mutants") run through the backend
// suites of `kda-harness check`, each suite stopped at its first failing case (a kill). The
// unmutated plugin runs through the same suites and must pass every case (no false alarm).
// `kda-harness mutants` (cmd_mutants.cpp) prints the result as a kill matrix.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/description/operator.hpp"
#include "engine/description/production_shapes.hpp"
#include "golden/golden_set.hpp"

namespace kda::cli {

// Where a family of plugins lives: the unmutated one and its mutants, by file name.
struct PluginFamily {
  std::string control;        // "libkda_cpu_example_kda_replayssm.so"
  std::string mutant_prefix;  // "libkda_cpu_example_kda_replayssm_mutant_": every "<prefix>*.so" is a mutant
};
// The family of `backend` ("cpu": the CPU example plugin; "cuda": this project's CUDA
// kernel) for operator `op`, named after both: lib<backend's base>_<op>.so and
// lib<backend's base>_<op>_mutant_<bug>.so. Throws std::invalid_argument for another backend.
PluginFamily plugin_family(const std::string& backend, std::string_view op);

struct FoundPlugins {
  std::filesystem::path control;  // empty when absent
  std::vector<std::filesystem::path> mutants;  // sorted by file name
};
FoundPlugins find_plugins(const std::filesystem::path& dir, const PluginFamily& family);

// One suite on one plugin, until its first failing case or `cases` cases.
struct SuiteRun {
  std::string suite;
  bool killed = false;
  int64_t cases = 0;       // cases run: up to and including the kill
  double cpu_seconds = 0;  // thread CPU time of those cases
  std::string message;     // the kill's one-line message (tensor, index, row, head, step)
  std::string replay;      // the kill's replay line
  std::string error;       // the suite could not run (a plugin that does not load)
  bool skipped = false;    // nothing to run (an operator without golden cases): it can kill nothing
};

struct PluginRun {
  std::string name;                   // the plugin's own name, "cpu-example-mutant-slot-zero"
  std::filesystem::path path;
  bool control = false;               // the unmutated plugin
  std::vector<SuiteRun> suites;       // in the check's order
  const SuiteRun* first_kill() const; // the first suite that killed it, nullptr if none
  // CPU seconds and cases until the first kill in the check's order (all earlier suites ran
  // to the end): what the default check spends before it fails.
  double cpu_seconds_to_kill() const;
  int64_t cases_to_kill() const;
};

// The backend suites the default check runs on a plugin, in its order.
const std::vector<std::string>& mutant_suites();

struct MatrixOptions {
  const engine::OperatorDescription* op = &engine::default_operator();  // what the plugins implement
  int64_t cases = 100;  // per random suite (the golden suite runs the whole set)
  uint64_t seed = 1;
  double gpu_work_budget = 2e7;  // the check's default
  int jobs = 1;                  // plugins judged at once
  std::vector<std::string> suites = mutant_suites();  // those run, in the check's order
  std::optional<engine::ProductionShape> model;         // --model
};

std::vector<PluginRun> run_matrix(const std::vector<std::filesystem::path>& plugins,
                                  const std::filesystem::path& control, const golden::LoadedSet& golden,
                                  const MatrixOptions& options);

// Whether a kill message says where: a tensor, a row or slot, a head and a step.
bool names_place(const std::string& message);

}  // namespace kda::cli
