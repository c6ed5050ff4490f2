#include "contract/tensor_view.hpp"

#include <algorithm>
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
  // Compact stride = product of the later sizes; saturates (a tensor that large cannot exist,
  // but its metadata must not overflow).
  return clamp_to_i64(product_sat(t.shape + d + 1, t.ndim - d - 1));
}

std::vector<int64_t> shape_of(const DLTensor& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

std::vector<int64_t> strides_of(const DLTensor& t) {
  std::vector<int64_t> s(t.ndim);
  for (int64_t d = 0; d < t.ndim; ++d) s[d] = stride(t, d);
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

bool may_self_overlap(const DLTensor& t) {
  if (numel(t) <= 1 || t.strides == nullptr) return false;  // compact never overlaps
  // Dims of size > 1 by |stride|; each stride must exceed the extent of all smaller ones,
  // which is sufficient for distinct indices to map to distinct offsets.
  std::vector<std::pair<i128, i128>> dims;  // (|stride|, size); i128: |INT64_MIN| fits
  for (int64_t d = 0; d < t.ndim; ++d) {
    const i128 s = stride(t, d);
    if (t.shape[d] > 1) dims.push_back({s < 0 ? -s : s, t.shape[d]});
  }
  std::sort(dims.begin(), dims.end());
  i128 extent = 0;  // largest offset reachable by the dims so far (saturating)
  for (auto [s, n] : dims) {
    if (s <= extent) return true;
    extent = std::min<i128>(extent + mul_sat(s, n - 1), kSaturated);
  }
  return false;
}

}  // namespace kda
