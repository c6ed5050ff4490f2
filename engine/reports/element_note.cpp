#include "engine/reports/element_note.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>

#include "contract/tensor_view.hpp"

namespace kda::engine {

std::string worst_element(const HostTensor& expected, const HostTensor& actual, const std::vector<unsigned char>* before,
                          int64_t i0, int64_t i1, int64_t i2) {
  const auto& shape = actual.shape();
  // A 3-D tensor (a ring of one scalar per record, a per-head gate ring) has no last dim
  // to run along: its block [i0, i1, i2] is one element.
  const bool rank3 = shape.size() == 3;
  const int64_t lo = i2 < 0 ? 0 : i2, hi = i2 < 0 ? shape[2] : i2 + 1, width = rank3 ? 1 : shape[3];
  std::vector<int64_t> worst;
  double worst_diff = 0;
  bool worst_nan = false;
  for (int64_t j = lo; j < hi; ++j)
    for (int64_t e = 0; e < width; ++e) {
      const std::vector<int64_t> idx = rank3 ? std::vector<int64_t>{i0, i1, j} : std::vector<int64_t>{i0, i1, j, e};
      const double x = expected.get(idx), y = actual.get(idx);
      const bool nan = std::isnan(x) || std::isnan(y);
      const double diff = std::abs(x - y);
      if (worst_nan || (!nan && !(diff > worst_diff))) continue;
      worst = idx, worst_diff = diff, worst_nan = nan;
    }
  if (worst.empty()) return "";
  const double x = expected.get(worst), y = actual.get(worst);
  std::string s = fmt::format("there the greatest absolute difference: {:.3e} at index ({}) (expected {:.6g}, got {:.6g})",
                              std::abs(x - y), fmt::join(worst, ", "), x, y);
  if (!std::isnan(y)) return s;
  const std::size_t size = size_of(actual.type());
  const int64_t at = element_offset(actual.dl(), worst.data()) * static_cast<int64_t>(size);
  const bool unchanged = before != nullptr && static_cast<std::size_t>(at) + size <= before->size() &&
                         std::memcmp(before->data() + at, actual.storage().data() + at, size) == 0;
  if (unchanged) return s + " (never written by the step: it still holds the NaN the case fills unwritten memory with)";
  return s + " (written as NaN: most likely computed from memory the step must not read, which the case fills with "
             "NaN: ring records at or past the cursor, slots no row names, strided gaps)";
}

}  // namespace kda::engine
