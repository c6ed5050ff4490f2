#include "engine/reports/step_stats.hpp"

#include <algorithm>
#include <cmath>

namespace kda::engine {

Stats summarize(std::vector<double> unit_us, int64_t steps_per_unit) {
  Stats s;
  if (unit_us.empty()) return s;
  std::sort(unit_us.begin(), unit_us.end());
  const std::size_t n = unit_us.size();
  auto rank = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    return unit_us[std::min(n - 1, i == 0 ? 0 : i - 1)];
  };
  const double per = static_cast<double>(steps_per_unit);
  s.median_us = (n % 2 == 1 ? unit_us[n / 2] : 0.5 * (unit_us[n / 2 - 1] + unit_us[n / 2])) / per;
  s.p10_us = rank(0.10) / per;
  s.p90_us = rank(0.90) / per;
  s.samples = static_cast<int64_t>(n);
  return s;
}

}  // namespace kda::engine
