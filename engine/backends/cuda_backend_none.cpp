#include <stdexcept>

#include "engine/backends/cuda_backend.hpp"
#include "engine/backends/gpu_probe.hpp"

namespace kda::engine {

std::unique_ptr<Backend> make_cuda_backend(int, const OperatorDescription&) {
  throw std::runtime_error(gpu_unavailable_reason());
}

std::unique_ptr<Backend> cuda_plugin_backend(const kda_plugin&, const std::string& what) {
  throw std::runtime_error(what + ": a CUDA plugin, which needs the harness's CUDA support, and " + no_cuda_in_this_build());
}

}  // namespace kda::engine
