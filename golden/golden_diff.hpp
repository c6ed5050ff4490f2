// What moved between two versions of a golden file: tensors added, removed, reshaped or
// changed (how many elements, the largest absolute and relative change), and metadata keys
// that changed. Used by `kda-harness golden regen` to summarize a regeneration.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "golden/safetensors.hpp"

namespace kda::golden {

struct TensorChange {
  std::string tensor;
  std::string what;             // "added", "removed", "dtype/shape changed", "values changed"
  int64_t elements_changed = 0; // values changed: elements whose bytes differ
  int64_t nan_changed = 0;      // of those, elements NaN on one side only
  double max_abs = 0, max_rel = 0;  // over elements finite on both sides
};

struct FileDiff {
  std::vector<TensorChange> tensors;
  std::vector<std::string> metadata;  // keys added, removed or changed
  bool empty() const { return tensors.empty() && metadata.empty(); }
  std::string describe(const std::string& indent) const;  // one line per change
};

FileDiff diff_files(const SafetensorsFile& before, const SafetensorsFile& after);

}  // namespace kda::golden
