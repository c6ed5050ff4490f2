// Element access for the CPU example plugin: a DLTensor read and written by logical index,
// through its strides, converting float32 / bfloat16 / float16 / int32 / int64 to and from
// float (round to nearest even on stores).
#pragma once
#include <dlpack/dlpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "contract/scalar_type.hpp"
#include "contract/step_args.hpp"
#include "engine/backends/plugin_call.hpp"
#include "plugins/cpu_example/mutants.hpp"

namespace kda::example {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  if (exp == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(man), -24);  // zero, subnormals
  if (exp == 31) {
    const uint32_t bits = sign | 0x7F800000u | (man << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const uint32_t bits = sign | ((exp + 112) << 23) | (man << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half(float f) {
  // Via float's own rounding: scale into half's range, let the FPU round to nearest even.
  if (std::isnan(f)) return 0x7E00;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7C00;                      // rounds to infinity
  if (a < 6.103515625e-05f)                                      // subnormal half: steps of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  int e;
  const float m = std::frexp(a, &e);                             // a = m 2^e, m in [0.5, 1)
  float r = std::nearbyint(m * 2048.0f);                         // 11 significant bits
  if (r == 2048.0f) r = 1024.0f, ++e;
  return sign | static_cast<uint16_t>(((e + 14) << 10) | (static_cast<uint16_t>(r) & 0x3FF));
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

inline float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// x rounded to dtype t and back (beta's rounding point).
inline float round_to(float x, ScalarType t) {
  if (t == ScalarType::BFloat16) return bf16_to_float(float_to_bf16(x));
  if (t == ScalarType::Float16) return half_to_float(float_to_half(x));
  return x;
}

class Tensor {
 public:
  explicit Tensor(const DLTensor* t) : t_(t) {}
  ScalarType dtype() const { return *scalar_type_of(t_->dtype); }

  float at4(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const { return load(offset({i0, i1, i2, i3}, 4)); }
  void store4(int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) { store(offset({i0, i1, i2, i3}, 4), v); }
  float at3(int64_t i0, int64_t i1, int64_t i2) const { return load(offset({i0, i1, i2}, 3)); }
  void store3(int64_t i0, int64_t i1, int64_t i2, float v) { store(offset({i0, i1, i2}, 3), v); }
  float flat1(int64_t i) const { return load(offset({i}, 1)); }
  float flat2(int64_t i0, int64_t i1) const { return load(offset({i0, i1}, 2)); }
  // Element i of a contiguous tensor of any rank (dt_bias as [HV*K] or [HV, K]).
  float flat(int64_t i) const { return load(i); }
  // Element i of row `row` of a tensor contiguous within each row (a as [B, HV*K] or [B, HV, K]).
  float flat_row(int64_t row, int64_t i) const { return load(row * stride(0) + i); }
  // Whether element [i0, i1, i2, i3] lies inside the tensor's storage, also for an index past
  // a dim's size (the planted bug of a loop one row too long must not write outside it).
  bool holds(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const {
    int64_t extent = 0;
    for (int d = 0; d < t_->ndim; ++d) extent += (t_->shape[d] - 1) * stride(d);
    return offset({i0, i1, i2, i3}, 4) <= extent;
  }
  // Zeroes every element (any rank), through the tensor's strides.
  void zero_all() {
    int64_t n = 1;
    for (int d = 0; d < t_->ndim; ++d) n *= t_->shape[d];
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, off = 0;
      for (int d = t_->ndim; d-- > 0;) off += (rest % t_->shape[d]) * stride(d), rest /= t_->shape[d];
      store(off, 0.0f);
    }
  }

 private:
  int64_t offset(std::initializer_list<int64_t> index, int rank) const {
    int64_t off = 0, d = 0;
    for (int64_t i : index) off += i * stride(d++);
    (void)rank;
    return off;
  }
  // Element stride of dim d: the tensor's own, or (planted bug) that of a compact tensor.
  int64_t stride(int64_t d) const {
    if (!planted(Mutant::StridesIgnored)) return t_->strides[d];
    int64_t s = 1;
    for (int64_t i = d + 1; i < t_->ndim; ++i) s *= t_->shape[i];
    return s;
  }
  unsigned char* base() const { return static_cast<unsigned char*>(t_->data) + t_->byte_offset; }
  float load(int64_t element) const {
    unsigned char* p = base() + element * (t_->dtype.bits / 8);
    switch (dtype()) {
      case ScalarType::Float32: { float f; std::memcpy(&f, p, 4); return f; }
      case ScalarType::BFloat16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_to_float(h); }
      case ScalarType::Float16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
      case ScalarType::Int32: { int32_t i; std::memcpy(&i, p, 4); return static_cast<float>(i); }
      case ScalarType::Int64: { int64_t i; std::memcpy(&i, p, 8); return static_cast<float>(i); }
    }
    return 0;
  }
  void store(int64_t element, float v) {
    unsigned char* p = base() + element * (t_->dtype.bits / 8);
    switch (dtype()) {
      case ScalarType::Float32: std::memcpy(p, &v, 4); return;
      case ScalarType::BFloat16: { const uint16_t h = float_to_bf16(v); std::memcpy(p, &h, 2); return; }
      case ScalarType::Float16: { const uint16_t h = float_to_half(v); std::memcpy(p, &h, 2); return; }
      default: return;  // index tensors are never written
    }
  }
  const DLTensor* t_;
};

inline StepArgs step_args(const kda_call& call) { return engine::step_args_of(call); }

}  // namespace kda::example
