#include "engine/description/golden_spec.hpp"

namespace kda::golden {

const char* feature_name(Feature f) {
  switch (f) {
    case Feature::Append: return "append";
    case Feature::NaturalFlush: return "natural flush";
    case Feature::ForcedFlush: return "forced flush";
    case Feature::Padding: return "padding row";
    case Feature::DivergentCursors: return "divergent cursors";
    case Feature::HistoryCheckpoint: return "history checkpoint";
    case Feature::WrappedWindow: return "wrapped window";
  }
  return "?";
}

}  // namespace kda::golden
