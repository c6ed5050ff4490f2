// kda_packed_decode on our CUDA kernel (CUDA builds only): its launcher, kernels/packed_decode.hpp, for the
// table operators/cuda_kernel_table.cpp.
#pragma once
#include "engine/backends/cuda_kernel.hpp"

namespace kda::engine {

const CudaKernel& kda_packed_decode_cuda_kernel();

}  // namespace kda::engine
