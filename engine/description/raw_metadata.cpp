#include "engine/description/raw_metadata.hpp"

#include <algorithm>

namespace kda::raw {

std::optional<bool> overlaps(const DLTensor& t, int64_t max_elements) {
  const Wide n = numel(t);
  if (n > max_elements) return std::nullopt;
  if (n <= 1) return false;
  std::vector<Wide> offsets;
  offsets.reserve(static_cast<std::size_t>(n));
  std::vector<int64_t> index(t.ndim, 0);
  for (Wide e = 0; e < n; ++e) {
    Wide off = 0;
    for (int64_t d = 0; d < t.ndim; ++d) off += static_cast<Wide>(index[d]) * stride(t, d);
    offsets.push_back(off);
    for (int64_t d = t.ndim - 1; d >= 0; --d) {  // next index, last dim fastest
      if (++index[d] < t.shape[d]) break;
      index[d] = 0;
    }
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

std::string tuple_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string wide_text(Wide v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string s;
  for (Wide u = negative ? -v : v; u > 0; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
  return negative ? "-" + s : s;
}

}  // namespace kda::raw
