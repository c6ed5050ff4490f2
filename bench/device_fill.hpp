// Device-side fills of the benchmark's tensors: host generation of gigabytes of state would
// cost more device-machine time than the measurements. Values come from the harness's own
// counter-based generator (cases/rng.hpp), so they are deterministic and never zero.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "contract/scalar_type.hpp"

namespace kda::bench {

// n elements of type t (Float32, BFloat16 or Float16) uniform on [lo, hi), from (seed, n's index).
void fill_uniform(void* data, int64_t n, ScalarType t, uint64_t seed, float lo, float hi, cudaStream_t stream);
// n int32 elements: start, start + step, start + 2 step, ...
void fill_int32_ramp(void* data, int64_t n, int32_t start, int32_t step, cudaStream_t stream);

}  // namespace kda::bench
