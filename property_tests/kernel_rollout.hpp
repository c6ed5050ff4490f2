// Kernel vs reference, step by step. Two identical materializations of one CaseConfig: the
// CUDA kernel advances one (through a DeviceMirror, out poisoned with NaN before every
// launch), reference::replayssm_step(Rounding::Kernel) the other. After every step:
//   - the kernel's status tensor equals the host's plan of every row;
//   - out (every row: padding/rejected rows exactly zero) and what the step wrote
//     (checkpoints of flushed rows, ring records of appending rows) agree within the
//     dtype-derived bounds;
//   - no byte outside what the step may write changed (envelope gaps, other slots, other
//     ring records), and every device guard region is intact.
// At the end every checkpoint and ring record the rows still depend on is compared again.
#pragma once
#include <functional>
#include <string>

#include "cases/case_config.hpp"
#include "cases/case_tensors.hpp"
#include "property_tests/kernel_device_mirror.hpp"
#include "reference/compare.hpp"

namespace kda::testing {

struct KernelRolloutReport {
  CaseConfig config;
  int64_t tokens = 0, flushes = 0, appends = 0, rejected_rows = 0;
  reference::Comparison out, state, d_ring, k_ring, g_ring;
  std::string failure;  // status / footprint / guard problem ("" if none)
  bool pass() const;
  std::string summary() const;
};

// Changes the kernel's copy before a step (adversarial index/cursor values); the reference
// then sees every row the plan rejects as a padding row.
using StepMutator = std::function<void(CaseTensors& kernel_case, int64_t token)>;

KernelRolloutReport run_kernel_vs_reference(const CaseConfig& config, DeviceMirror& mirror,
                                            const StepMutator& mutate = nullptr);

}  // namespace kda::testing
