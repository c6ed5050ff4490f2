// kda_replayssm on our CUDA kernel: its launcher (kda::cuda::replayssm_decode, declared in
// kernels/replayssm_decode.hpp for the engine's device mirror) validates with the operator's
// contract, reads the call into the kernel's parameters and enqueues one step; and its row of
// the table of launchers (engine/backends/cuda_kernel.hpp), declared in this folder's CMakeLists.txt.
#include "contract/validate.hpp"
#include "engine/backends/cuda_kernel.hpp"
#include "kernels/replayssm_decode.hpp"
#include "kernels/replayssm_launch.hpp"

namespace kda::cuda {

Dims replayssm_decode(const StepArgs& args, cudaStream_t stream, DLTensor* row_status) {
  const Dims dims = validate(args, Backend::Cuda);
  if (row_status != nullptr) check_row_status(*row_status, *args.mixed_qkv, dims.B);
  enqueue(args, replayssm_params(args, dims, row_status), stream);
  return dims;
}

}  // namespace kda::cuda

namespace kda::engine {

// Linear rings; the peer's recorded times are this operator's; at L = 1 the benchmark times
// the plain packed decode on the same tensors beside this step.
extern const CudaKernel kda_replayssm_cuda_kernel{.validate = &validate,
                                                  .launch = &cuda::replayssm_decode,
                                                  .validates = true,
                                                  .index_dtypes = KDA_DT_ALL_INDICES,
                                                  .ring_modes = KDA_RING_LINEAR,
                                                  .peer_recorded = true,
                                                  .timed_beside = "kda_packed_decode"};

}  // namespace kda::engine
