// The engine of `kda-harness check`: a suite is a number of independent cases and a
// function that runs one (giving its engine::CaseReport); run_suite() spreads the cases over worker threads (each worker
// has a fixed index, so a GPU suite can bind worker w to GPU w mod n), shows progress with
// an estimate of the time left, and folds the outcomes in case order (the report does not
// depend on thread timing).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/driver/backend_cases.hpp"
#include "engine/reports/case_report.hpp"

namespace kda::cli {

struct SuiteSpec {
  std::string name, backend;  // backend: "cpu" or "cuda"
  std::string what;           // one line: what the suite checks
  int64_t cases = 0;
  std::string skip_reason;    // non-empty: the suite does not run (shown in the table)
  int jobs = 1;
  // Runs case `index` on worker `worker` (0 <= worker < jobs).
  std::function<engine::CaseReport(int64_t index, int worker)> run;
  // The line that replays case `index`, known before it runs (set for the suites that run the
  // judged backend): a fatal signal prints it, and `check --isolate` runs these suites' cases
  // in child processes, a crashed case failing with it.
  std::function<std::string(int64_t index)> replay;
};

// One case of a suite as a report lists it (JUnit: one testcase each).
struct CaseOutcome {
  int64_t index = 0;
  std::string label;  // "case 7", and a golden case's name
  bool pass = true;
  double seconds = 0;
  int64_t kept = -1;  // a failure's position in SuiteResult::failures; -1: passed, or left out
};

struct SuiteResult {
  std::string name, backend, what, skip_reason;
  int64_t cases = 0, passed = 0, failed = 0;
  double worst_error = 0, worst_tolerance = 0, worst_ratio = 0;
  bool worst_is_nan = false;
  std::string worst_replay, worst_detail;
  double seconds = 0;
  std::vector<CaseOutcome> outcomes;         // every case, in case order
  std::vector<engine::CaseReport> failures;  // the first keep_failures failures in full
  // What the cases that ran a rollout tested: their configs' spread and the steps they took.
  engine::CaseStats coverage;
  int64_t tokens = 0, flushes = 0, appends = 0;
  bool skipped() const { return !skip_reason.empty(); }
  bool ok() const { return failed == 0; }
  int64_t failures_left_out() const { return failed - static_cast<int64_t>(failures.size()); }
};

// Progress of a suite on standard error, with an estimate of the time left: a bar redrawn in
// place on a terminal, else one line every `every_seconds` (CI logs, pipes).
class Progress {
 public:
  enum class Mode { Off, Bar, Lines };
  explicit Progress(Mode mode, double every_seconds = 5) : mode_(mode), every_(every_seconds) {}
  // Shows suite `name`: done of total after `seconds`.
  void draw(const std::string& name, int64_t done, int64_t total, int64_t failed, double seconds) const;
  void clear() const;

 private:
  Mode mode_;
  double every_;
  mutable double last_ = -1;        // when the last line of the suite was printed (Lines)
  mutable std::string last_suite_;  // the suite that line was about
};

// How `check` shows progress: Off when asked, a Bar only where stderr is a terminal that
// redraws a line in place (ESC[K): not under TERM=dumb or unset, nor with NO_COLOR set
// (no-color.org: no escape sequences), else Lines.
Progress::Mode progress_mode(bool off);

// Runs every case (none when skipped). Exceptions escaping a case count as its failure.
// Keeps the first keep_failures failing reports whole (the rest only as outcomes).
SuiteResult run_suite(const SuiteSpec& spec, const Progress& progress, int64_t keep_failures = 1000);

// The result of a suite from its cases' reports and times, in case order, and the time the
// suite took.
SuiteResult fold_outcomes(const SuiteSpec& spec, std::vector<engine::CaseReport> outcomes, std::vector<double> case_seconds,
                          double seconds, int64_t keep_failures = 5);

}  // namespace kda::cli
