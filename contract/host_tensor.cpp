#include "contract/host_tensor.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "contract/checked_int.hpp"
#include "contract/tensor_view.hpp"

namespace kda {

// Owned host buffers beyond this are refused up front rather than attempted (2^40 bytes).
constexpr i128 kMaxHostBytes = static_cast<i128>(1) << 40;

double load_element(const std::byte* p, ScalarType t) {
  switch (t) {
    case ScalarType::Float32: { float v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::BFloat16: { Eigen::bfloat16 v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
    case ScalarType::Float16: { Eigen::half v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
    case ScalarType::Int32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::Int64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  }
  return 0;
}

void store_element(std::byte* p, ScalarType t, double v) {
  switch (t) {
    case ScalarType::Float32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    // Through float first, as the kernels do (float32 arithmetic, then a rounding store).
    case ScalarType::BFloat16: { Eigen::bfloat16 h(static_cast<float>(v)); std::memcpy(p, &h, 2); return; }
    case ScalarType::Float16: { Eigen::half h(static_cast<float>(v)); std::memcpy(p, &h, 2); return; }
    case ScalarType::Int32: { int32_t i = static_cast<int32_t>(v); std::memcpy(p, &i, 4); return; }
    case ScalarType::Int64: { int64_t i = static_cast<int64_t>(v); std::memcpy(p, &i, 8); return; }
  }
}

HostTensor::HostTensor(ScalarType type, std::vector<int64_t> shape, std::vector<int64_t> strides)
    : shape_(std::move(shape)), strides_(std::move(strides)) {
  if (strides_.empty()) {
    strides_.resize(shape_.size());
    i128 s = 1;
    for (int64_t d = static_cast<int64_t>(shape_.size()) - 1; d >= 0; --d) {
      if (s > INT64_MAX) throw std::length_error("HostTensor: compact strides do not fit in int64");
      strides_[d] = static_cast<int64_t>(s);
      s = mul_sat(s, std::max<int64_t>(shape_[d], 1));  // PyTorch's: a zero-size dim counts as 1
    }
  }
  if (strides_.size() != shape_.size()) throw std::invalid_argument("HostTensor: strides rank != shape rank");
  // The strided envelope (largest reachable offset + 1), in 128 bits: fuzzed metadata may
  // carry strides near 2^62. An empty tensor addresses nothing, whatever its strides.
  i128 hi = 0;
  bool empty = false;
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] < 0 || strides_[d] < 0) throw std::invalid_argument("HostTensor: negative size or stride");
    if (shape_[d] == 0) empty = true;
    else hi = std::min(hi + mul_sat(shape_[d] - 1, strides_[d]), kSaturated);
  }
  if (!empty && (hi + 1) * static_cast<i128>(size_of(type)) > kMaxHostBytes)
    throw std::length_error("HostTensor: the strided envelope exceeds the host allocation limit");
  storage_.assign(empty ? 1 : static_cast<std::size_t>(hi + 1) * size_of(type), std::byte{0});
  dl_.dtype = to_dl(type);
  dl_.device = {kDLCPU, 0};
  relink();
}

HostTensor HostTensor::adopt_compact(ScalarType type, std::vector<int64_t> shape, std::vector<std::byte> compact_bytes) {
  HostTensor t = metadata(to_dl(type), shape, compact_strides(shape), {kDLCPU, 0});
  i128 numel = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("HostTensor: negative size");
    numel = std::min(mul_sat(numel, d), kSaturated);
  }
  if (numel * static_cast<i128>(size_of(type)) != static_cast<i128>(compact_bytes.size()))
    throw std::invalid_argument("HostTensor::adopt_compact: the bytes do not match the shape and dtype");
  t.storage_ = std::move(compact_bytes);
  if (t.storage_.empty()) t.storage_.assign(1, std::byte{0});  // as the allocating constructor: data non-null
  t.relink();
  return t;
}

HostTensor HostTensor::metadata(DLDataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                                DLDevice device, bool strides_null) {
  HostTensor t;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.strides_null_ = strides_null;
  if (!strides_null && t.strides_.size() != t.shape_.size())
    throw std::invalid_argument("HostTensor::metadata: strides rank != shape rank");
  t.dl_.dtype = dtype;
  t.dl_.device = device;
  t.relink();
  return t;
}

void HostTensor::relink() {
  dl_.ndim = static_cast<int32_t>(shape_.size());
  dl_.shape = shape_.data();
  dl_.strides = strides_null_ ? nullptr : strides_.data();
  dl_.data = storage_.empty() ? nullptr : storage_.data();
  dl_.byte_offset = 0;
}

HostTensor::HostTensor(const HostTensor& o)
    : shape_(o.shape_), strides_(o.strides_), storage_(o.storage_), dl_(o.dl_), strides_null_(o.strides_null_) {
  relink();
}
HostTensor& HostTensor::operator=(const HostTensor& o) {
  if (this != &o) {
    shape_ = o.shape_; strides_ = o.strides_; storage_ = o.storage_; dl_ = o.dl_; strides_null_ = o.strides_null_;
    relink();
  }
  return *this;
}
HostTensor::HostTensor(HostTensor&& o) noexcept
    : shape_(std::move(o.shape_)), strides_(std::move(o.strides_)), storage_(std::move(o.storage_)),
      dl_(o.dl_), strides_null_(o.strides_null_) {
  relink();
  o.relink();
}
HostTensor& HostTensor::operator=(HostTensor&& o) noexcept {
  if (this != &o) {
    shape_ = std::move(o.shape_); strides_ = std::move(o.strides_); storage_ = std::move(o.storage_);
    dl_ = o.dl_; strides_null_ = o.strides_null_;
    relink();
    o.relink();
  }
  return *this;
}

ScalarType HostTensor::type() const {
  auto t = scalar_type_of(dl_.dtype);
  if (!t) throw std::logic_error("HostTensor::type: dtype outside the five known types");
  return *t;
}

int64_t HostTensor::numel() const { return kda::numel(dl_); }

double HostTensor::get(const std::vector<int64_t>& index) const {
  const auto t = type();
  return load_element(storage_.data() + element_offset(dl_, index.data()) * size_of(t), t);
}

void HostTensor::set(const std::vector<int64_t>& index, double value) {
  const auto t = type();
  store_element(storage_.data() + element_offset(dl_, index.data()) * size_of(t), t, value);
}

static int64_t linear_to_offset(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t i) {
  // The innermost dims with row-major strides map their part of i to itself: one division
  // for all of them (the case generator writes every element through here).
  int64_t d = static_cast<int64_t>(shape.size()) - 1, inner = 1;
  while (d >= 0 && strides[d] == inner && shape[d] > 0) inner *= shape[d--];
  if (d < 0) return i;
  int64_t off = i % inner;
  i /= inner;
  for (; d >= 0; --d) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

double HostTensor::get_linear(int64_t i) const {
  const auto t = type();
  return load_element(storage_.data() + linear_to_offset(shape_, strides_, i) * size_of(t), t);
}

void HostTensor::set_linear(int64_t i, double value) {
  const auto t = type();
  store_element(storage_.data() + linear_to_offset(shape_, strides_, i) * size_of(t), t, value);
}

bool HostTensor::same_layout(const HostTensor& other) const {
  return dl_.dtype.code == other.dl_.dtype.code && dl_.dtype.bits == other.dl_.dtype.bits &&
         dl_.dtype.lanes == other.dl_.dtype.lanes && shape_ == other.shape_ && strides_ == other.strides_ &&
         storage_.size() == other.storage_.size();
}

void HostTensor::copy_bytes_from(const HostTensor& other) {
  if (!same_layout(other)) throw std::invalid_argument("HostTensor::copy_bytes_from: dtype, shape or strides differ");
  std::copy(other.storage_.begin(), other.storage_.end(), storage_.begin());
}

}  // namespace kda
