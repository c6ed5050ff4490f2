#include "operators/kda_packed_decode/cuda_launch.hpp"

#include "kernels/packed_decode.hpp"

namespace kda::engine {

// The launcher applies the operator's contract itself.
const CudaKernel& kda_packed_decode_cuda_kernel() {
  static const CudaKernel kernel{&cuda::packed_decode, true};
  return kernel;
}

}  // namespace kda::engine
