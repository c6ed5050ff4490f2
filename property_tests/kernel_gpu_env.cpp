#include "property_tests/kernel_gpu_env.hpp"

#include <cstdlib>

namespace kda::testing {

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (end != nullptr && *end == '\0') ? n : fallback;
}

}  // namespace kda::testing
