// Read-only questions about a DLTensor, with PyTorch's definitions (contract.md,
// "Definitions"): null strides mean compact row-major as PyTorch allocates it (stride d = the
// product of max(size, 1) over the later dims, so (2, 2, 64, 0) has (128, 64, 1, 1), not
// (0, 0, 0, 1)); is_contiguous skips size-1 dims;
// shapes print as Python tuples. Nothing here overflows on any metadata: products of sizes
// are formed in 128 bits (checked_int.hpp) and clamped where an int64 is returned, e.g. the
// compact stride or numel of a tensor too large for any framework saturates at INT64_MAX.
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kda {

int64_t ndim(const DLTensor& t);
int64_t size(const DLTensor& t, int64_t dim);    // dim may be negative (Python style)
int64_t stride(const DLTensor& t, int64_t dim);  // element stride; compact when strides == null
std::vector<int64_t> shape_of(const DLTensor& t);
std::vector<int64_t> strides_of(const DLTensor& t);  // never null: compact strides filled in
// Row-major strides of a shape as torch.empty(shape).stride() gives them (zero-size dims count
// as 1), saturating at INT64_MAX (fuzzed shapes reach 2^62).
std::vector<int64_t> compact_strides(const std::vector<int64_t>& shape);
int64_t numel(const DLTensor& t);
bool is_contiguous(const DLTensor& t);
bool same_device(const DLTensor& x, const DLTensor& y);
// Python's tuple repr: "()", "(3,)", "(3, 1, 4, 128)".
std::string tuple_repr(const std::vector<int64_t>& v);
// Element offset of a multi-index (no bounds check).
int64_t element_offset(const DLTensor& t, const int64_t* index);
// Element i of a 1-D int32/int64 tensor in host memory, and its store: by bytes, so int64
// values past 2^53 stay exact (no double round trip).
int64_t index_value(const DLTensor& t, int64_t i);
void set_index_value(DLTensor& t, int64_t i, int64_t v);
// The smallest and largest element offsets the tensor can address (0,0 when numel == 0).
struct OffsetRange { int64_t lo = 0, hi = 0; };
OffsetRange offset_range(const DLTensor& t);
// True when two distinct in-bounds indices could name the same element (a stride pattern
// that makes writes race), e.g. a zero stride on a dim of size > 1. Exact for tensors of at
// most kExactOverlapLimit elements; larger ones must pass the sorted-stride proof (each
// |stride| above the extent of the smaller ones), else they count as overlapping.
inline constexpr int64_t kExactOverlapLimit = int64_t{1} << 20;
bool may_self_overlap(const DLTensor& t);

}  // namespace kda
