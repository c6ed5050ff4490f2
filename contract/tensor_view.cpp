#include "contract/tensor_view.hpp"

#include <algorithm>
#include <stdexcept>

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
  int64_t s = 1;
  for (int64_t i = t.ndim - 1; i > d; --i) s *= t.shape[i];
  return s;
}

std::vector<int64_t> shape_of(const DLTensor& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

std::vector<int64_t> strides_of(const DLTensor& t) {
  std::vector<int64_t> s(t.ndim);
  for (int64_t d = 0; d < t.ndim; ++d) s[d] = stride(t, d);
  return s;
}

int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int64_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

bool is_contiguous(const DLTensor& t) {
  if (numel(t) == 0) return true;
  int64_t expected = 1;
  for (int64_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (stride(t, d) != expected) return false;
    expected *= t.shape[d];
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
  int64_t off = 0;
  for (int64_t d = 0; d < t.ndim; ++d) off += index[d] * stride(t, d);
  return off;
}

OffsetRange offset_range(const DLTensor& t) {
  OffsetRange r;
  if (numel(t) == 0) return r;
  for (int64_t d = 0; d < t.ndim; ++d) {
    int64_t span = (t.shape[d] - 1) * stride(t, d);
    (span < 0 ? r.lo : r.hi) += span;
  }
  return r;
}

bool may_self_overlap(const DLTensor& t) {
  if (numel(t) <= 1) return false;
  // Dims of size > 1 by |stride|; each stride must exceed the extent of all smaller ones,
  // which is sufficient for distinct indices to map to distinct offsets.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (int64_t d = 0; d < t.ndim; ++d)
    if (t.shape[d] > 1) dims.push_back({std::abs(stride(t, d)), t.shape[d]});
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;  // largest offset reachable by the dims so far
  for (auto [s, n] : dims) {
    if (s <= extent) return true;
    extent += s * (n - 1);
  }
  return false;
}

}  // namespace kda
