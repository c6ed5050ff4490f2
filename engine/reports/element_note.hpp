// One line on the element of a block that failed its comparison with the greatest absolute
// difference: the difference, its index, the value expected there and the one found, and for
// a NaN where it came from. The cases fill every
// element a step must not read with NaN (ring records at and past the cursor, slots no row
// names, strided gaps; out before each step), so a NaN that a step left in place was never
// written, and a NaN it wrote was most likely computed from memory it must not read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "contract/host_tensor.hpp"

namespace kda::engine {

// The block is [i0, i1, i2, :] of the 4-D tensors, or [i0, i1, :, :] when i2 < 0 (of a 3-D
// tensor, one scalar per ring record: [i0, i1, i2], or [i0, i1, :]). `before`:
// the bytes of `actual`'s storage before the step (engine/description/row_plan.hpp's WrittenBytes), or
// nullptr when unknown. "" when the block holds no differing element.
std::string worst_element(const HostTensor& expected, const HostTensor& actual, const std::vector<unsigned char>* before,
                          int64_t i0, int64_t i1, int64_t i2);

}  // namespace kda::engine
