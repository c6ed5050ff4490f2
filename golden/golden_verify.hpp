// Verification of a golden case on a backend (the CPU reference, the CUDA kernel, ...), in
// one engine::CaseReport.
//
// Step cases are played by the engine's one driver (engine/driver/run_case.hpp: refusals, row
// status, footprint and guards checked at every step) on working copies of the case's
// inputs, with the file's expected tensors as the oracle:
//   - out of every step against expected.out, per output head, with the floors of
//     reference/compare.hpp; padding rows must be exactly zero;
//   - the checkpoint of every slot a step flushed (the stored per-step checkpoint, or the
//     final expected.initial_state at the last step);
//   - at the end, every checkpoint and ring record a step wrote, against the final expected
//     tensors; every element no step may write (other slots, records at or past the cursors,
//     the checkpoint of a row that only appended) must equal its expected bytes exactly;
// Tolerances: engine::bounds_vs_reference for the backend's profile (two computations each
// within the rollout bounds of the float64 recurrence), with the gate mass each (slot, head) reached;
// ring records as the kernel suite bounds them (reference::record_bounds and record_floor:
// d: output bound + 2 u_ring; k: 2 u_ring + 1e-5; g: 5.4e-5). Bit-exact reproduction is
// counted separately (the reference on the machine that generated the files reproduces
// every tensor bit for bit).
// Cases without expected results (a user's dump) are compared with the float64 ReplaySSM
// model (reference::ReplayModel<double>, on the operator's view of the call as
// kda_replayssm's) within reference::rollout_bounds instead: outputs and flushed checkpoints.
// Error cases: the backend must raise exactly the stated catalog id and message, the
// message must be the catalog's, and no byte of any tensor the step writes may change.
#pragma once
#include <functional>
#include <string>

#include "contract/step_args.hpp"
#include "engine/backends/backend.hpp"
#include "engine/reports/case_report.hpp"
#include "golden/golden_case.hpp"
#include "reference/compare.hpp"

namespace kda::golden {

// The backend's profile decides the bounds (engine/description/profile.hpp); a backend that reports row
// status or guard regions has them checked after every step.
engine::CaseReport verify_case(const GoldenCase& c, engine::Backend& backend);

}  // namespace kda::golden
