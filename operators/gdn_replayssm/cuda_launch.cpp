// gdn_replayssm on our CUDA kernel: its launcher (cuda_launch.hpp) and its row of the table of
// launchers (engine/backends/cuda_kernel.hpp), declared in this folder's CMakeLists.txt.
#include "operators/gdn_replayssm/cuda_launch.hpp"

#include "engine/backends/cuda_kernel.hpp"
#include "kernels/replayssm_launch.hpp"
#include "operators/gdn_replayssm/contract.hpp"

namespace kda::cuda {

Dims gdn_replayssm_decode(const StepArgs& args, cudaStream_t stream, DLTensor* row_status) {
  const Dims dims = gdn_kernel_dims(args);
  if (row_status != nullptr) check_row_status(*row_status, *args.mixed_qkv, dims.B);
  detail::ReplayParams p = replayssm_params(args, dims, row_status, Gates::PerHead);
  if (args.circular_replay) {  // prefix_gate_cache is not read: GDN's g ring holds raw gates either way
    p.circular = true;
    p.cache_base = tensor_ref(*args.cache_base);
  }
  enqueue(args, p, stream);
  return dims;
}

}  // namespace kda::cuda

namespace kda::engine {

// The launcher reads only the shapes it needs (cuda_kernel_dims.cpp): the backend and the
// plugin apply the operator's contract first. int32 indices (the contract refuses int64, G25);
// linear and circular rings (circular-replay.md).
extern const CudaKernel gdn_replayssm_cuda_kernel{.validate = &validate_gdn_replayssm,
                                                  .launch = &cuda::gdn_replayssm_decode,
                                                  .validates = false,
                                                  .index_dtypes = KDA_DT_INT32,
                                                  .ring_modes = KDA_RING_LINEAR | KDA_RING_CIRCULAR | KDA_RING_PREFIX_GATES};

}  // namespace kda::engine
