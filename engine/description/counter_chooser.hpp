// The Chooser of the harness's own counter generator (cases/rng.hpp): the n-th choice of
// (seed, stream, index) is a pure function of them, so draw `index` of seed `seed` is the
// same on every machine and independent of every other draw.
#pragma once
#include <cstdint>

#include "cases/rng.hpp"
#include "engine/description/chooser.hpp"

namespace kda::engine {

class CounterChooser final : public Chooser {
 public:
  CounterChooser(uint64_t seed, rng::Stream stream, uint64_t index) : r_(seed, stream, index) {}
  std::size_t pick(std::span<const uint32_t> weights) override;
  int64_t integer(int64_t lo, int64_t hi) override;
  uint64_t bits() override { return r_.bits(next_++); }

 private:
  rng::Counter r_;
  uint64_t next_ = 0;
};

// Streams of their own, apart from the ones the case generator uses for tensors.
namespace stream {
inline constexpr auto kCheckCases = static_cast<rng::Stream>(0xD7A3);    // `kda-harness check` rollout cases
inline constexpr auto kContractCalls = static_cast<rng::Stream>(0xC0A7); // the contract sweep's calls and mutations
}  // namespace stream

}  // namespace kda::engine
