// The harness's own random numbers: a counter-based generator. Every value is a pure
// function of (seed, stream, token, element), hashed with splitmix64's finalizer, so a
// tensor's bytes do not depend on the order in which it is filled, on the platform, or on
// the standard library (std:: distributions differ between libraries; this does not).
#pragma once
#include <cmath>
#include <cstdint>

namespace kda::rng {

// splitmix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Which tensor or decision a number is for; each has its own stream.
enum class Stream : uint64_t {
  Qkv = 1, GateLogits, BetaLogits, ALog, DtBias, Scale, State, DRing, KRing, GRing,
  Padding, SlotOrder, Cursor, Flush, HeadMagnitude, Adversarial, CacheBase
};

class Counter {
 public:
  constexpr Counter(uint64_t seed, Stream stream, uint64_t token = 0)
      : key_(mix64(mix64(mix64(seed) ^ static_cast<uint64_t>(stream)) ^ token)) {}

  constexpr uint64_t bits(uint64_t element) const { return mix64(key_ ^ mix64(element)); }
  // Uniform on [0, 1), 53 bits.
  double uniform(uint64_t element) const { return static_cast<double>(bits(element) >> 11) * 0x1p-53; }
  double uniform(uint64_t element, double lo, double hi) const { return lo + (hi - lo) * uniform(element); }
  // Integer in [0, n), n >= 1 (multiply-shift; bias below 2^-32 for the sizes used here).
  uint64_t below(uint64_t element, uint64_t n) const {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(bits(element)) * n) >> 64);
  }
  bool bernoulli(uint64_t element, double p) const { return uniform(element) < p; }
  // Standard normal by Box-Muller on two independent uniforms of the element.
  double normal(uint64_t element) const {
    const uint64_t h1 = bits(element), h2 = mix64(h1 ^ 0xD1B54A32D192ED03ull);
    const double u1 = 1.0 - static_cast<double>(h1 >> 11) * 0x1p-53;  // (0, 1]
    const double u2 = static_cast<double>(h2 >> 11) * 0x1p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t key_;
};

}  // namespace kda::rng
