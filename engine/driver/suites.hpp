// The harness's suites: one table, read by the CLI (`kda-harness check`, tools/check_suites.*),
// the C library (kda_check_plugin) and through it Python (kda_harness.check), so that a suite
// has one name and one meaning everywhere; and the runner of case i of a drawn backend suite,
// which the CLI and the C library both call.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_config.hpp"
#include "engine/backends/backend.hpp"
#include "engine/description/envelope.hpp"
#include "engine/description/production_shapes.hpp"
#include "engine/reports/case_report.hpp"

namespace kda::engine {

struct SuiteInfo {
  std::string_view name;
  bool judges_backend;    // the backend under test (CUDA kernel, plugin, Python callable); else the harness itself, on the CPU
  bool drawn;             // a backend suite whose case i is drawn inside the backend's envelope (run_suite_case); else
                          // the golden set's cases, or a CPU suite the CLI runs
  bool in_default_check;  // run by `kda-harness check` when --suites names none
  int64_t default_cases;  // `kda-harness check`'s count; -1: the size of the golden set
  uint64_t seed_offset;   // the suite draws its cases from the user's seed plus this
  std::string_view what;  // what it judges (`check --list`, --help)
};

// Every suite, in the order `check` runs them.
const std::vector<SuiteInfo>& suite_table();
// The suite named `name`; nullptr when none is.
const SuiteInfo* find_suite(std::string_view name);
// Why `name` is no suite the C library (and Python) runs against a backend: unknown (a former
// name of one says its name now), a suite that judges the harness itself, or one it cannot run;
// "" when it is one. `known` lists them.
std::string backend_suite_problem(std::string_view name);
// The same for the CLI: "" when `name` is in the table.
std::string suite_problem(std::string_view name);
// The drawn backend suites (the C library's), comma-separated, in table order.
const std::string& drawn_suite_names();
// Those of them run when none is named (in_default_check: kernel-contract only when named),
// comma-separated: the default of the C library and its front ends (engine/driver/defaults.hpp).
const std::string& default_drawn_suite_names();

// Where a backend suite draws: inside the backend's envelope narrowed by the caller's
// restriction, from the caller's seed (each suite adds its seed_offset).
struct SuiteDraws {
  uint64_t seed = 1;
  double work_budget = 2e7;  // reference work per drawn rollout (the operator's sample_case)
  Envelope restriction;
  // Feed runtime-invalid rows to a backend that declares InvalidRows::None too (where the kernel
  // suite gives other backends theirs), reporting without failing whether it stayed in bounds.
  bool probe_invalid_rows = false;
  // check --model: the kernel, kernel-truth and envelope suites draw this model's shapes only.
  std::optional<ProductionShape> model;
  // check --pin: config keys every drawn case takes ("T=1 vfirst=1 gik=1"), for a backend that
  // serves one mode of its operator; each case is drawn as without it, then its keys set.
  std::string pin;
};

// "" when `pin` is a list of config keys with_keys takes, else why not.
std::string pin_error(std::string_view pin);
// A drawn config with the pin's keys set (SuiteDraws::pin; empty: as drawn), before the
// operator's fit: set over the operator's own case (its fit chooses what the draw leaves open),
// so that the keys the pin leaves are drawn as without it.
CaseConfig pinned(const OperatorDescription& op, const CaseConfig& drawn, std::string_view pin);

// Case i of a drawn suite, before it runs.
struct PlannedCase {
  enum class Kind {
    NoCase,           // no case fits the region (`problem` says why): the case fails
    Rollout,          // the config's rollout, vs the CPU reference (kernel) or the float64 recurrence (kernel-truth)
    InvalidRow,       // the rollout with one row made runtime-invalid at one token (`call` says how)
    InvalidRowProbe,  // the same on a backend that claims nothing of such rows: reported, never failed
    OutsideEnvelope,  // a call just outside the backend's envelope (`call`: why), which must be refused
    NothingToTest,    // skipped (`problem` says why): the envelope suite on a backend whose envelope is
                      // the whole contract, the kernel-contract suite of an operator without documented error inputs
    ErrorInput,       // one documented check's error input (`call`: "error input ID"), refused with its message
  };
  Kind kind = Kind::NoCase;
  CaseConfig config;  // made one of the backend operator's cases
  CaseConfig drawn;   // as drawn, before (the driver makes it the operator's case itself)
  std::string call;   // what the case does to the config's call ("" for a plain rollout)
  std::string problem;
};
PlannedCase plan_suite_case(const SuiteInfo& suite, const Backend& backend, const SuiteDraws& draws, int64_t i);

// Runs case i of a drawn suite on `backend`. The report's config is the planned config; a
// case that ran no rollout says what it was in `what` (with its failure) or, a call outside
// the envelope, in `outside_envelope`; a passing one that checked a refusal says so in `note`.
CaseReport run_suite_case(const SuiteInfo& suite, Backend& backend, const SuiteDraws& draws, int64_t i);

// The planned case as one line: its config line, then " | " and what it does to the call
// (the C library's replay; Python's kda_harness.check(config=...) reruns a plain rollout).
std::string planned_line(const PlannedCase& planned, const OperatorDescription& op);

}  // namespace kda::engine
