#include <stdexcept>

#include "engine/backends/cuda_backend.hpp"

namespace kda::engine {

std::unique_ptr<Backend> make_cuda_backend(int, const OperatorDescription&) {
  throw std::runtime_error("no CUDA device: this build has no CUDA kernel (KDA_ENABLE_CUDA=OFF)");
}

std::unique_ptr<Backend> cuda_plugin_backend(const kda_plugin&, const std::string& what) {
  throw std::runtime_error(what + ": a CUDA plugin, but this build has no CUDA support (KDA_ENABLE_CUDA=OFF)");
}

}  // namespace kda::engine
