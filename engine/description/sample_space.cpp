#include "engine/description/sample_space.hpp"

#include <stdexcept>

namespace kda::engine {

int64_t choose_in(Chooser& c, std::span<const WeightedRange> ranges, IntRange limit) {
  std::vector<uint32_t> weights;
  std::vector<IntRange> kept;
  for (const WeightedRange& r : ranges) {
    const IntRange clipped = r.range.clipped_to(limit);
    if (r.weight == 0 || clipped.empty()) continue;
    weights.push_back(r.weight);
    kept.push_back(clipped);
  }
  if (kept.empty()) throw std::invalid_argument("sample space: the limits exclude every range");
  const IntRange r = kept[c.pick(weights)];
  return c.integer(r.lo, r.hi);
}

}  // namespace kda::engine
