#include "engine/description/counter_chooser.hpp"

#include <numeric>
#include <stdexcept>

namespace kda::engine {

std::size_t CounterChooser::pick(std::span<const uint32_t> weights) {
  const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});
  if (total == 0) throw std::invalid_argument("CounterChooser::pick: all weights zero");
  uint64_t r = r_.below(next_++, total);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;
}

int64_t CounterChooser::integer(int64_t lo, int64_t hi) {
  if (hi < lo) throw std::invalid_argument("CounterChooser::integer: empty range");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;  // 0: the whole of uint64
  const uint64_t x = span == 0 ? r_.bits(next_++) : r_.below(next_++, span);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x);
}

}  // namespace kda::engine
