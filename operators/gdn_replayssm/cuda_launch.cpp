#include "operators/gdn_replayssm/cuda_launch.hpp"

#include "kernels/gdn_replayssm_decode.hpp"

namespace kda::engine {

// The launcher reads only the shapes it needs (kernels/gdn_kernel_dims.cpp): the backend applies
// the operator's contract first. Linear and circular rings (circular-replay.md).
const CudaKernel& gdn_replayssm_cuda_kernel() {
  static const CudaKernel kernel{&cuda::gdn_replayssm_decode, false, KDA_RING_ALL};
  return kernel;
}

}  // namespace kda::engine
