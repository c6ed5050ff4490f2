#include "contract/tensor_view.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "contract/checked_int.hpp"

namespace kda {

int64_t ndim(const DLTensor& t) { return t.ndim; }

static int64_t wrap_dim(const DLTensor& t, int64_t dim) {
  int64_t d = dim < 0 ? dim + t.ndim : dim;
  if (d < 0 || d >= t.ndim) throw std::out_of_range("tensor dim out of range");
  return d;
}

int64_t size(const DLTensor& t, int64_t dim) { return t.shape[wrap_dim(t, dim)]; }

int64_t stride(const DLTensor& t, int64_t dim) {
  int64_t d = wrap_dim(t, dim);
  if (t.strides) return t.strides[d];
  // Compact stride as PyTorch allocates it: the product of the later sizes, each at least 1
  // (contract.md: null strides are what torch.empty(shape) has); saturates (a tensor that
  // large cannot exist, but its metadata must not overflow).
  return clamp_to_i64(compact_stride_sat(t.shape + d + 1, t.ndim - d - 1));
}

std::vector<int64_t> shape_of(const DLTensor& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

std::vector<int64_t> strides_of(const DLTensor& t) {
  std::vector<int64_t> s(t.ndim);
  for (int64_t d = 0; d < t.ndim; ++d) s[d] = stride(t, d);
  return s;
}

std::vector<int64_t> compact_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d)
    s[d] = clamp_to_i64(compact_stride_sat(shape.data() + d + 1, static_cast<int64_t>(shape.size() - d - 1)));
  return s;
}

int64_t numel(const DLTensor& t) { return clamp_to_i64(product_sat(t.shape, t.ndim)); }

bool is_contiguous(const DLTensor& t) {
  if (numel(t) == 0 || t.strides == nullptr) return true;  // null strides: compact by definition
  i128 expected = 1;  // saturating: a stride (int64) never equals a saturated product
  for (int64_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (stride(t, d) != expected) return false;
    expected = mul_sat(expected, t.shape[d]);
  }
  return true;
}

bool same_device(const DLTensor& x, const DLTensor& y) {
  return x.device.device_type == y.device.device_type && x.device.device_id == y.device.device_id;
}

std::string tuple_repr(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  if (v.size() == 1) s += ",";
  return s + ")";
}

int64_t element_offset(const DLTensor& t, const int64_t* index) {
  i128 off = 0;
  for (int64_t d = 0; d < t.ndim; ++d) off += static_cast<i128>(index[d]) * stride(t, d);
  return clamp_to_i64(off);
}

int64_t index_value(const DLTensor& t, int64_t i) {
  const auto* at = static_cast<const std::byte*>(t.data) + t.byte_offset + i * stride(t, 0) * (t.dtype.bits / 8);
  if (t.dtype.bits == 64) {
    int64_t v;
    std::memcpy(&v, at, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, at, 4);
  return v;
}

void set_index_value(DLTensor& t, int64_t i, int64_t v) {
  auto* at = static_cast<std::byte*>(t.data) + t.byte_offset + i * stride(t, 0) * (t.dtype.bits / 8);
  if (t.dtype.bits == 64) {
    std::memcpy(at, &v, 8);
  } else {
    const auto w = static_cast<int32_t>(v);
    std::memcpy(at, &w, 4);
  }
}

OffsetRange offset_range(const DLTensor& t) {
  if (numel(t) == 0) return {};
  i128 lo = 0, hi = 0;  // each span < 2^126 in magnitude; the sums saturate at +-2^126
  for (int64_t d = 0; d < t.ndim; ++d) {
    const i128 span = static_cast<i128>(t.shape[d] - 1) * stride(t, d);
    if (span < 0) lo = std::max(lo + span, -kSaturated);
    else hi = std::min(hi + span, kSaturated);
  }
  return {clamp_to_i64(lo), clamp_to_i64(hi)};
}

namespace {

// Exact test by enumeration: every element's offset, sorted, looking for a repeat.
bool offsets_repeat(const DLTensor& t, int64_t n) {
  std::vector<i128> offsets;
  offsets.reserve(static_cast<std::size_t>(n));
  std::vector<int64_t> index(t.ndim, 0);
  for (int64_t e = 0; e < n; ++e) {
    i128 off = 0;
    for (int64_t d = 0; d < t.ndim; ++d) off += static_cast<i128>(index[d]) * stride(t, d);
    offsets.push_back(off);
    for (int64_t d = t.ndim - 1; d >= 0; --d) {  // next index, last dim fastest
      if (++index[d] < t.shape[d]) break;
      index[d] = 0;
    }
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

}  // namespace

bool may_self_overlap(const DLTensor& t) {
  if (numel(t) <= 1 || t.strides == nullptr) return false;  // compact never overlaps
  // Fast proof of disjointness (all usual layouts, envelope strides included): dims of size
  // > 1 sorted by |stride|, each stride exceeds the extent of all smaller ones.
  std::vector<std::pair<i128, i128>> dims;  // (|stride|, size); i128: |INT64_MIN| fits
  for (int64_t d = 0; d < t.ndim; ++d) {
    const i128 s = stride(t, d);
    if (t.shape[d] > 1) dims.push_back({s < 0 ? -s : s, t.shape[d]});
  }
  std::sort(dims.begin(), dims.end());
  i128 extent = 0;  // largest offset reachable by the dims so far (saturating)
  bool proven = true;
  for (auto [s, n] : dims) {
    if (s <= extent) { proven = false; break; }
    extent = std::min<i128>(extent + mul_sat(s, n - 1), kSaturated);
  }
  if (proven) return false;
  // Interleaved strides can still be disjoint (e.g. [2, 3] with strides [2, 3]): decide
  // exactly by enumeration while that is cheap; beyond it, refuse what cannot be proven.
  const int64_t n = numel(t);
  return n > kExactOverlapLimit || offsets_repeat(t, n);
}

}  // namespace kda
