#include <stdexcept>

#include "engine/backends/cuda_backend.hpp"
#include "engine/backends/gpu_probe.hpp"

namespace kda::engine {

std::unique_ptr<Backend> make_cuda_backend(int, const OperatorDescription&) {
  throw std::runtime_error(gpu_unavailable_reason());
}

std::unique_ptr<Backend> cuda_plugin_backend(const kda_plugin&, const std::string& what) {
  throw std::runtime_error(what + ": a CUDA plugin cannot run here: " + gpu_unavailable_reason());
}

}  // namespace kda::engine
