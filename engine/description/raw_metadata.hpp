// An independent reading of DLPack metadata, written from contract.md's "Definitions" without
// contract/tensor_view.hpp: what the operators' restated contracts (contract_restatement.hpp)
// and the fuzz targets' oracles are written in, so that they do not share the code they
// judge. Sizes and products are 128-bit; products saturate at 2^126 (kWideSat) and a
// saturated value means "too large to say exactly".
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kda::raw {

using Wide = __int128;
inline constexpr Wide kWideSat = static_cast<Wide>(1) << 126;

inline Wide wmul(Wide a, Wide b) {  // a, b >= 0, saturating
  if (a == 0 || b == 0) return 0;
  if (a >= kWideSat || b >= kWideSat || a > kWideSat / b) return kWideSat;
  return a * b;
}

// The element stride of dim d (d may be negative, Python style; ndim > 0): the raw one, or,
// when strides are null, what torch.empty(shape) has: the product of the later sizes, each
// counted as at least 1 ((2, 2, 64, 0) has (128, 64, 1, 1)).
inline Wide stride(const DLTensor& t, int64_t d) {
  if (d < 0) d += t.ndim;
  if (t.strides) return t.strides[d];
  Wide p = 1;
  for (int64_t i = d + 1; i < t.ndim; ++i) p = wmul(p, t.shape[i] > 1 ? t.shape[i] : 1);
  return p;
}

inline Wide numel(const DLTensor& t) {
  Wide p = 1;
  for (int64_t i = 0; i < t.ndim; ++i)
    if (t.shape[i] == 0) return 0;
  for (int64_t i = 0; i < t.ndim; ++i) p = wmul(p, t.shape[i]);
  return p;
}

// PyTorch's is_contiguous(): numel 0, or each stride (dims of size 1 skipped) equals the
// product of the later sizes.
inline bool contiguous(const DLTensor& t) {
  if (numel(t) == 0 || !t.strides) return true;
  Wide expected = 1;
  for (int64_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected = wmul(expected, t.shape[d]);
  }
  return true;
}

inline std::vector<int64_t> shape(const DLTensor& t) { return {t.shape, t.shape + t.ndim}; }

inline bool is_pow2(Wide x) { return x > 0 && (x & (x - 1)) == 0; }

inline bool dtype_is(const DLTensor& t, uint8_t code, uint8_t bits) {
  return t.dtype.code == code && t.dtype.bits == bits && t.dtype.lanes == 1;
}
inline bool is_float_type(const DLTensor& t) {
  return dtype_is(t, kDLFloat, 32) || dtype_is(t, kDLBfloat, 16) || dtype_is(t, kDLFloat, 16);
}
inline bool is_int32(const DLTensor& t) { return dtype_is(t, kDLInt, 32); }

inline bool same_device(const DLTensor& x, const DLTensor& y) {
  return x.device.device_type == y.device.device_type && x.device.device_id == y.device.device_id;
}

inline bool has_negative_stride(const DLTensor& t) {
  if (!t.strides) return false;
  for (int64_t d = 0; d < t.ndim; ++d)
    if (t.strides[d] < 0) return true;
  return false;
}

// Whether two distinct indices of t address one element, by enumerating every element's
// offset; nullopt when t has more than max_elements elements (too large to enumerate).
std::optional<bool> overlaps(const DLTensor& t, int64_t max_elements = 1 << 14);

std::string tuple_text(const std::vector<int64_t>& v);
std::string wide_text(Wide v);

}  // namespace kda::raw
