// gdn_replayssm on our CUDA kernel (CUDA builds only): its launcher, kernels/gdn_replayssm_decode.hpp, for the
// table operators/cuda_kernel_table.cpp.
#pragma once
#include "engine/backends/cuda_kernel.hpp"

namespace kda::engine {

const CudaKernel& gdn_replayssm_cuda_kernel();

}  // namespace kda::engine
