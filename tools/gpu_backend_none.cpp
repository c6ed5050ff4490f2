// The build without the CUDA kernel (KDA_ENABLE_CUDA=OFF, e.g. the clang fuzz preset): the
// probe reports why no GPU suite can run; the other functions are never reached because
// every caller asks the probe first.
#include <stdexcept>

#include "tools/gpu_backend.hpp"

namespace kda::cli {

GpuProbe probe_gpus() {
  GpuProbe p;
  p.reason = "this kda-harness was built without the CUDA kernel (KDA_ENABLE_CUDA=OFF)";
  return p;
}

golden::VerifyBackend cuda_backend(int) { throw std::logic_error("kda-harness: built without the CUDA kernel"); }
CaseOutcome kernel_vs_reference(const CaseConfig&, int) {
  throw std::logic_error("kda-harness: built without the CUDA kernel");
}
reference::RolloutReport kernel_vs_truth(const CaseConfig&, int) {
  throw std::logic_error("kda-harness: built without the CUDA kernel");
}

}  // namespace kda::cli
