// Kernel vs reference, step by step. Two identical materializations of one CaseConfig: the
// CUDA kernel advances one (through a DeviceMirror, out poisoned with NaN before every
// launch), reference::replayssm_step(Rounding::Kernel) the other. After every step:
//   - the kernel's status tensor equals the host's plan of every row;
//   - out (every row: padding/rejected rows exactly zero) and what the step wrote
//     (checkpoints of flushed rows, ring records of appending rows) agree within
//     reference::kernel_vs_reference_bounds at the step's gate mass, each block judged
//     against its natural scale (compare.hpp's floors, computed from the reference in
//     float64), so quantities that cancel are not judged relative to their tiny sum;
//   - no byte outside what the step may write changed (envelope gaps, other slots, other
//     ring records), and every device guard region is intact.
// At the end every checkpoint and ring record the rows still depend on is compared again.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "cases/case_tensors.hpp"
#include "property_tests/kernel_device_mirror.hpp"
#include "reference/compare.hpp"

namespace kda::testing {

struct KernelRolloutReport {
  CaseConfig config;
  int64_t tokens = 0, flushes = 0, appends = 0, rejected_rows = 0;
  double max_gate_mass = 0;  // the largest gate mass G the bounds were taken at
  reference::Comparison out, state, d_ring, k_ring, g_ring;
  std::string failure;  // status / footprint / guard problem ("" if none)
  bool pass() const;
  std::string summary() const;
};

// Changes the kernel's copy before a step (adversarial index/cursor values); the reference
// then sees every row the plan rejects as a padding row.
using StepMutator = std::function<void(CaseTensors& kernel_case, int64_t token)>;

// What is checked: a step on the caller's host tensors (in place), the per-row status it
// reported, and whether its device guard regions are intact. The CUDA kernel through a
// DeviceMirror is one; the CPU self-test of this driver uses others.
struct StepSubject {
  std::function<void(const StepArgs& host)> step;
  std::function<std::vector<int32_t>()> row_status;
  std::function<bool()> guards_intact;
};
StepSubject device_subject(DeviceMirror& mirror);

KernelRolloutReport run_subject_vs_reference(const CaseConfig& config, const StepSubject& subject,
                                             const StepMutator& mutate = nullptr);
// run_subject_vs_reference(config, device_subject(mirror), mutate).
KernelRolloutReport run_kernel_vs_reference(const CaseConfig& config, DeviceMirror& mirror,
                                            const StepMutator& mutate = nullptr);

}  // namespace kda::testing
