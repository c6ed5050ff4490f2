// A row-padded layout: the outermost dim's stride longer than the rest of the tensor, as a
// slice of a wider buffer gives it (e.g. `a` cut from a fused projection output). Each row
// keeps a unit last stride, but the tensor is not contiguous when it has two rows or more.
// The plain packed decode accepts such an `a` (V4 reads only the last stride); ReplaySSM's
// wrapper refuses it (W1). The golden set applies it to a materialized case; the W1 error
// input applies it to a call's metadata: both take the strides from here, so the two
// operators' cases share one layout.
#pragma once
#include <cstdint>
#include <vector>

#include "contract/host_tensor.hpp"

namespace kda {

// Elements between the end of one row and the start of the next: odd, so a padded row is
// never aligned like a compact one.
inline constexpr int64_t kRowPadding = 5;

// Compact strides of `shape` with dim 0's lengthened by kRowPadding (rank >= 1).
std::vector<int64_t> row_padded_strides(const std::vector<int64_t>& shape);

// The same elements re-laid row-padded; the gap bytes are 0xFF (NaN in every float dtype,
// so a step that reads them shows it). Draws no random numbers: the values are t's.
HostTensor row_padded(const HostTensor& t);

}  // namespace kda
