#include "engine/backends/gpu_probe.hpp"

namespace kda::engine {

GpuProbe probe_gpus() {
  GpuProbe p;
  p.reason = "no CUDA device: this build has no CUDA kernel: it was configured without CUDA (KDA_ENABLE_CUDA=OFF; "
             "the pip wheel always is); a CMake build on a machine with the CUDA toolkit has it (bash scripts/run-check.sh)";
  return p;
}

std::string gpu_unavailable_reason() { return probe_gpus().reason; }

std::string gpu_unavailable_reason_from_a_child() { return gpu_unavailable_reason(); }

}  // namespace kda::engine
