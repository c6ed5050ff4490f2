#include "golden/golden_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "contract/host_tensor.hpp"

namespace kda::golden {
namespace {

TensorChange compare_values(const std::string& name, const StoredTensor& x, const StoredTensor& y) {
  TensorChange c{name, "values changed"};
  const std::size_t size = size_of(x.dtype);
  for (std::size_t i = 0; i < x.data.size() / size; ++i) {
    const std::byte* px = x.data.data() + i * size;
    const std::byte* py = y.data.data() + i * size;
    if (std::memcmp(px, py, size) == 0) continue;
    const double a = load_element(px, x.dtype), b = load_element(py, y.dtype);
    if (std::isnan(a) && std::isnan(b)) continue;  // another NaN payload: the same value
    ++c.elements_changed;
    if (std::isnan(a) != std::isnan(b)) {
      ++c.nan_changed;
      continue;
    }
    const double diff = std::abs(a - b);
    c.max_abs = std::max(c.max_abs, diff);
    c.max_rel = std::max(c.max_rel, diff / std::max(std::abs(a), std::abs(b)));
  }
  return c;
}

}  // namespace

FileDiff diff_files(const SafetensorsFile& before, const SafetensorsFile& after) {
  FileDiff d;
  for (const auto& [name, x] : before.tensors) {
    auto it = after.tensors.find(name);
    if (it == after.tensors.end()) d.tensors.push_back({name, "removed"});
    else if (x.dtype != it->second.dtype || x.shape != it->second.shape) d.tensors.push_back({name, "dtype/shape changed"});
    else if (x.data != it->second.data) {
      TensorChange c = compare_values(name, x, it->second);
      if (c.elements_changed > 0) d.tensors.push_back(c);
    }
  }
  for (const auto& [name, y] : after.tensors)
    if (!before.tensors.count(name)) d.tensors.push_back({name, "added"});
  for (const auto& [key, value] : before.metadata) {
    auto it = after.metadata.find(key);
    if (it == after.metadata.end()) d.metadata.push_back(key + " removed");
    else if (it->second != value) d.metadata.push_back(key + " changed");
  }
  for (const auto& [key, value] : after.metadata)
    if (!before.metadata.count(key)) d.metadata.push_back(key + " added");
  return d;
}

std::string FileDiff::describe(const std::string& indent) const {
  std::string s;
  for (const TensorChange& c : tensors) {
    s += indent + c.tensor + ": " + c.what;
    if (c.what == "values changed") {
      s += fmt::format(" in {} element(s), max abs {:.3e}, max rel {:.3e}", c.elements_changed, c.max_abs, c.max_rel);
      if (c.nan_changed) s += fmt::format(", {} turned NaN or finite", c.nan_changed);
    }
    s += "\n";
  }
  for (const std::string& m : metadata) s += indent + "metadata " + m + "\n";
  return s;
}

}  // namespace kda::golden
