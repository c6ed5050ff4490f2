// PyTorch's Tensor.view() on strided metadata. The wrapper flattens `a` and `dt_bias` with
// view() before the packed checks, and those checks then read the VIEW's strides (V4: the
// flat a.stride(-1), V6: the flat dt_bias.stride(0)). PyTorch derives them chunk by chunk
// from the old strides (aten computeStride), so a size-1 last dim with an odd stride can
// survive flattening; this reimplements that rule so the harness sees the same strides.
#pragma once
#include <dlpack/dlpack.h>

#include <optional>
#include <vector>

#include "contract/checked_int.hpp"

namespace kda {

// Strides of t as wide integers (null strides: compact as PyTorch allocates it, zero-size
// dims counted as 1; exact up to saturation).
std::vector<i128> wide_strides(const DLTensor& t);

// The strides of t.view(new_shape) (new_shape already has -1 resolved and the same numel),
// or nullopt where PyTorch's view() would refuse the stride pattern.
std::optional<std::vector<i128>> view_strides(const DLTensor& t, const std::vector<i128>& new_shape);

}  // namespace kda
