// Overflow-free integer arithmetic for metadata checks. validate() must give a defined answer
// for ANY DLTensor metadata (fuzzers pass sizes near 2^62 and ranks up to 5), so products of
// sizes are formed in 128 bits and saturate at kSaturated instead of wrapping. Every product
// of two int64 values is exact (< 2^126); only a product of three or more giant sizes, which
// no framework can allocate, saturates.
#pragma once
#include <cstdint>
#include <string>

namespace kda {

using i128 = __int128;

inline constexpr i128 kSaturated = static_cast<i128>(1) << 126;

// a * b for 0 <= a, b <= kSaturated, saturating at kSaturated.
inline i128 mul_sat(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  if (a > kSaturated / b) return kSaturated;
  const i128 p = a * b;
  return p > kSaturated ? kSaturated : p;
}

// a * b for any signs with |a|, |b| <= kSaturated, saturating at +-kSaturated.
inline i128 mul_sat_signed(i128 a, i128 b) {
  const i128 m = mul_sat(a < 0 ? -a : a, b < 0 ? -b : b);
  return (a < 0) != (b < 0) ? -m : m;
}

// Product of n non-negative sizes (0 if any is 0), saturating.
inline i128 product_sat(const int64_t* sizes, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (sizes[i] == 0) return 0;
  i128 p = 1;
  for (int64_t i = 0; i < n; ++i) p = mul_sat(p, sizes[i]);
  return p;
}

// The stride PyTorch gives a dim of a compact tensor whose later sizes are `sizes[0..n)`: the
// product of max(size, 1) (torch.empty((2, 2, 64, 0)).stride() == (128, 64, 1, 1): a zero-size
// dim counts as 1, so an empty tensor keeps the strides of its non-empty dims), saturating.
inline i128 compact_stride_sat(const int64_t* sizes, int64_t n) {
  i128 p = 1;
  for (int64_t i = 0; i < n; ++i) p = mul_sat(p, sizes[i] > 1 ? sizes[i] : 1);
  return p;
}

// Clamps into int64 (used where an API returns int64 for a value that may not fit).
inline int64_t clamp_to_i64(i128 v) {
  if (v > INT64_MAX) return INT64_MAX;
  if (v < INT64_MIN) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// Decimal text of v, as Python prints an int.
inline std::string to_string(i128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

}  // namespace kda
