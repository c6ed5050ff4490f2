// Writing a run of consecutive elements of a host tensor at once: the case generator fills
// a checkpoint, a ring record or a head's q, k or v a run at a time, and one offset
// computation per run instead of one per element (HostTensor::set_linear) is much of its cost.
#pragma once
#include <cstdint>
#include <span>

#include "contract/host_tensor.hpp"

namespace kda {

// Stores values into the logical (row-major) elements [first, first + values.size()) of t,
// each converted exactly as HostTensor::set_linear converts it (through float for the 16-bit
// types), so the bytes are those of set_linear element by element. A run that leaves t's
// compact innermost dims is stored element by element.
void store_run(HostTensor& t, int64_t first, std::span<const double> values);

}  // namespace kda
