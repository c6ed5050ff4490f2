// The contract sweep's mutations: one per check of contract.md (in its order) and per
// metadata extension of the harness. Each breaks its own check and no earlier one, touches
// one tensor (or, for the backend check, the backend), and states the exact message the
// broken call must raise. Two mutations of different tensors can be combined: the earlier
// check in the order must win.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tools/sweep_call.hpp"

namespace kda::cli {

struct SweepMutation {
  int order;           // position in the check order
  std::string label;   // contract.md's label (P0, W1, ..., R10) or the extension id
  std::string id;      // the catalog id validate() must raise
  std::string target;  // the tensor it edits ("backend" for the backend check)
  // Edits the call; false when the check cannot be broken on this call (nothing edited).
  std::function<bool(MetaCall&)> apply;
  // The exact message, from the valid call's sizes.
  std::function<std::string(const SweepDims&)> message;
};

const std::vector<SweepMutation>& sweep_mutations();

}  // namespace kda::cli
