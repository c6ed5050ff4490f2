// The one driver: plays a case on a backend, step by step, and judges every step with an
// oracle (engine/oracles/oracle.hpp), giving one CaseReport. For every step:
//   - the backend's copy of the case holds the step's inputs; out is poisoned with NaN (an
//     element the step leaves unwritten shows as NaN); an optional mutator makes rows
//     runtime-invalid for this step only;
//   - the rows are planned on the host (the operator's CaseDriver::plan_rows); where the
//     backend reports row status it must equal the plan; where it reports none, a step with a
//     rejected row must be refused with nothing written;
//   - a valid step must not be refused; no byte outside what the step may write changes
//     (envelope gaps, other slots, other ring records, every input); guard regions of a
//     device backend stay intact, and a host backend's tensors are lent between guard
//     regions that must stay intact too (engine/driver/host_guards.hpp);
//   - the oracle compares what the step computed.
// The case's cursors then advance by the caller's protocol (write_pos -> 0 after a flush,
// else +1; a rejected row keeps its cursor), or come from the case itself (a golden file).
#pragma once
#include <functional>
#include <string>

#include "cases/case_config.hpp"
#include "cases/case_tensors.hpp"
#include "engine/backends/backend.hpp"
#include "engine/reports/case_report.hpp"
#include "engine/oracles/oracle.hpp"

namespace kda::engine {

// What is played: the backend's working tensors and how each step's inputs come.
struct CasePlay {
  StepTensors& tensors;
  int64_t steps = 1;
  std::function<void(int64_t token)> load;  // token t's inputs (t > 0)
  bool advance_cursors = true;              // false: load() sets each step's cursors
  // Changes the tensors before a step (adversarial index/cursor values), for that step only;
  // the oracle then sees every row the plan rejects as a padding row.
  std::function<void(int64_t token)> mutate;
};

// A mutation of a drawn config's materialized case (CasePlay::mutate).
using StepMutator = std::function<void(CaseTensors& backend_case, int64_t token)>;

// The dims of a case's tensors as a call of `op`: they are a ReplaySSM call (at L = 1 for an
// operator without rings, which then flushes every row), valid for the operator, which
// decides what it takes (the plain packed decode takes a row-padded `a` that ReplaySSM
// refuses); L is the case's ring length. Throws ContractError when they are not.
Dims case_dims(const OperatorDescription& op, StepTensors& tensors);

// A report of `backend` on `config`, judged against `against`, with nothing compared yet.
CaseReport start_report(const CaseConfig& config, const Backend& backend, const std::string& against);

// Plays `play` on `backend`, judged by `oracle`, into `report` (started by start_report).
void run_case(const CasePlay& play, Backend& backend, Oracle& oracle, CaseReport& report);

// A case of the backend's operator against the CPU reference stepped in lockstep, within the
// backend's profile's bounds; a case of another operator is std::invalid_argument.
CaseReport run_vs_reference(const OperatorCase& c, Backend& backend, const StepMutator& mutate = nullptr);
// ... against the float64 plain recurrence, within engine::bounds_vs_truth for its profile.
CaseReport run_vs_truth(const OperatorCase& c, Backend& backend);
// A drawn config, first made one of the backend operator's cases (fit()).
CaseReport run_vs_reference(const CaseConfig& config, Backend& backend, const StepMutator& mutate = nullptr);
CaseReport run_vs_truth(const CaseConfig& config, Backend& backend);

}  // namespace kda::engine
