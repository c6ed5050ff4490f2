// The table of our CUDA kernel's launchers, one per operator folder's cuda_launch.cpp (CUDA
// builds only), by the operator's name: engine/backends/cuda_kernel.hpp.
#include <utility>

#include "engine/backends/cuda_kernel.hpp"
#include "engine/description/operator.hpp"
#include "operators/gdn_replayssm/description.hpp"
#include "operators/kda_packed_decode/description.hpp"
#include "operators/kda_replayssm/description.hpp"
#include "operators/gdn_replayssm/cuda_launch.hpp"
#include "operators/kda_packed_decode/cuda_launch.hpp"
#include "operators/kda_replayssm/cuda_launch.hpp"

namespace kda::engine {

const CudaKernel* cuda_kernel_of(std::string_view op) {
  static const std::pair<const OperatorDescription*, const CudaKernel*> table[] = {
      {&kda_replayssm_operator(), &kda_replayssm_cuda_kernel()},
      {&kda_packed_decode_operator(), &kda_packed_decode_cuda_kernel()},
      {&gdn_replayssm_operator(), &gdn_replayssm_cuda_kernel()}};
  for (const auto& [description, kernel] : table)
    if (description->name == op) return kernel;
  return nullptr;
}

}  // namespace kda::engine
