// Which CUDA devices the harness can use. Built from gpu_probe_cuda.cpp when the kernel is
// compiled (KDA_ENABLE_CUDA), else from gpu_probe_none.cpp, which says why there is none.
#pragma once
#include <string>
#include <vector>

namespace kda::engine {

struct GpuProbe {
  std::vector<int> devices;       // usable devices (compute capability 9.0 or newer)
  std::vector<std::string> names; // "0: NVIDIA H200 (sm_90)" per usable device
  std::string reason;             // why there is none, when devices is empty
};
GpuProbe probe_gpus();

// "" when a CUDA device is usable, and then it is the current device: the one CTest assigned
// (RESOURCE_GROUPS "gpus:1" sets CTEST_RESOURCE_GROUP_0_GPUS="id:N,slots:1"), else device 0;
// otherwise why not, e.g. "no CUDA device: <cudaGetErrorString>". Probed once per process.
std::string gpu_unavailable_reason();

// The same answer, found in a short-lived child process, so that this process never starts the
// CUDA driver: a process that has may not fork children that use CUDA themselves
// (`check --isolate` runs each case of a CUDA plugin in one). Asked once per process.
std::string gpu_unavailable_reason_from_a_child();

}  // namespace kda::engine
