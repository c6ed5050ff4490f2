// kda_packed_decode on our CUDA kernel: its launcher (cuda_launch.hpp) and its row of the
// table of launchers (engine/backends/cuda_kernel.hpp), declared in this folder's CMakeLists.txt.
#include "operators/kda_packed_decode/cuda_launch.hpp"

#include "engine/backends/cuda_kernel.hpp"
#include "kernels/replayssm_launch.hpp"
#include "operators/kda_packed_decode/contract.hpp"

namespace kda::cuda {

Dims packed_decode(const StepArgs& given, cudaStream_t stream, DLTensor* row_status) {
  const StepArgs args = packed_decode_args(given);
  const Dims dims = validate_packed_decode(args, Backend::Cuda);
  if (row_status != nullptr) check_row_status(*row_status, *args.mixed_qkv, dims.B);
  detail::ReplayParams p = replayssm_params(args, dims, row_status);
  p.L = 1;  // one token, flushed: ReplaySSM's L = 1 path
  p.plain = true;
  enqueue(args, p, stream);
  return dims;
}

}  // namespace kda::cuda

namespace kda::engine {

// No rings: the linear ring's protocol at L = 1.
extern const CudaKernel kda_packed_decode_cuda_kernel{.validate = &validate_packed_decode,
                                                      .launch = &cuda::packed_decode,
                                                      .validates = true,
                                                      .index_dtypes = KDA_DT_ALL_INDICES,
                                                      .ring_modes = KDA_RING_LINEAR};

}  // namespace kda::engine
