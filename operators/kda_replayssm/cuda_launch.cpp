#include "operators/kda_replayssm/cuda_launch.hpp"

#include "kernels/replayssm_decode.hpp"

namespace kda::engine {

// The launcher applies the operator's contract itself.
const CudaKernel& kda_replayssm_cuda_kernel() {
  static const CudaKernel kernel{&cuda::replayssm_decode, true};
  return kernel;
}

}  // namespace kda::engine
