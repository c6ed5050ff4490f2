// The CUDA kernel as seen by the harness's commands. Built from gpu_backend_cuda.cpp when
// the kernel is compiled (KDA_ENABLE_CUDA), else from gpu_backend_none.cpp, whose probe says
// why no GPU can be used; nothing else in it is reachable then.
#pragma once
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "golden/golden_verify.hpp"
#include "reference/rollout.hpp"
#include "tools/check_runner.hpp"

namespace kda::cli {

struct GpuProbe {
  std::vector<int> devices;       // usable devices (compute capability 9.0 or newer)
  std::vector<std::string> names; // "0: NVIDIA H200 (sm_90)" per usable device
  std::string reason;             // why there is none, when devices is empty
};
GpuProbe probe_gpus();

// The kernel as a golden backend on `device`: every step uploads the host tensors, poisons
// out, launches, downloads what the step writes, and checks the kernel's per-row status and
// the device guard regions. A rejected call raises the launcher's ContractError after
// downloading the device tensors, so that "nothing changed" is checked on the device's bytes.
golden::VerifyBackend cuda_backend(int device);

// The kernel against the CPU reference, step by step (property_tests/kernel_rollout.hpp).
CaseOutcome kernel_vs_reference(const CaseConfig& config, int device);
// The kernel against the float64 plain recurrence, within reference::rollout_bounds.
reference::RolloutReport kernel_vs_truth(const CaseConfig& config, int device);

}  // namespace kda::cli
