// The Chooser of the fuzz targets: every choice is read from the input's bytes. An exhausted
// input reads as the smallest choice (the first option, the low end of a range), so an empty
// input is the sample space's smallest case.
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include <numeric>

#include "engine/description/chooser.hpp"

namespace kda::fuzz {

class FdpChooser final : public engine::Chooser {
 public:
  explicit FdpChooser(FuzzedDataProvider& p) : p_(p) {}
  std::size_t pick(std::span<const uint32_t> weights) override {
    const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});
    uint64_t r = p_.ConsumeIntegralInRange<uint64_t>(0, total - 1);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }
  int64_t integer(int64_t lo, int64_t hi) override { return p_.ConsumeIntegralInRange<int64_t>(lo, hi); }
  uint64_t bits() override { return p_.ConsumeIntegral<uint64_t>(); }

 private:
  FuzzedDataProvider& p_;
};

}  // namespace kda::fuzz
