// Backend vs reference, step by step. Two identical materializations of one CaseConfig: the
// backend advances one (a GPU backend through a DeviceMirror, out poisoned with NaN before
// every launch), reference::replayssm_step(Rounding::Kernel) the other. After every step:
//   - the kernel's status tensor equals the host's plan of every row;
//   - out (every row: padding/rejected rows exactly zero) and what the step wrote
//     (checkpoints of flushed rows, ring records of appending rows) agree within
//     reference::kernel_vs_reference_bounds at the step's gate mass, each block judged
//     against its natural scale (compare.hpp's floors, computed from the reference in
//     float64), so quantities that cancel are not judged relative to their tiny sum;
//   - no byte outside what the step may write changed (envelope gaps, other slots, other
//     ring records), and every device guard region is intact.
// At the end every checkpoint and ring record the rows still depend on is compared again.
// Both drivers judge the backend's operator (Backend::op()): the config is first made one of
// its cases (OperatorDescription::fit_case), the reference is its reference step and the
// truth its function (beta rounded through b's dtype or not).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "cases/case_tensors.hpp"
#include "engine/backend.hpp"
#include "engine/case_report.hpp"
#include "reference/compare.hpp"

namespace kda::engine {

// Changes the backend's copy before a step (adversarial index/cursor values); the reference
// then sees every row the plan rejects as a padding row.
using StepMutator = std::function<void(CaseTensors& backend_case, int64_t token)>;

// Backend vs the CPU reference, step by step, within the backend's profile's bounds. Where
// the backend reports no row status, every row the plan rejects must be refused by raising.
CaseReport run_vs_reference(const CaseConfig& config, Backend& backend, const StepMutator& mutate = nullptr);

// Backend vs the float64 plain recurrence over the rollout (reference::run_rollout), within
// engine::bounds_vs_truth for its profile; guards checked at the end.
CaseReport run_vs_truth(const CaseConfig& config, Backend& backend);

}  // namespace kda::engine
