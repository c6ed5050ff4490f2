// The values behind a contract error, for `kda-harness validate`: what the failing check
// looked at (the tensors it reads, a shape it compares, the tuple it expected) and the sizes
// contract.md derives (B, H, HV, K, V, L, slots) where the metadata gets that far. H and HV
// are both named, since the seed error (R6) is the one where they are confused.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "contract/step_args.hpp"
#include "engine/description/operator.hpp"

namespace kda::cli {

struct Value {
  std::string name;     // "k_cache.shape[1:]", "expected (H, L, K)", "H"
  nlohmann::json json;  // the value as JSON (a number, a list of sizes, a string)
  std::string text;     // the value as printed: "(4, 4, 128)", "2"
  std::string note;     // where it comes from, e.g. "query heads, from mixed_qkv"
};

// The values for the check `id` (a catalog id) of operator op on this call's metadata. The
// tensors named are found from data: those op's error inputs raising `id` edit in its valid
// call, and those the catalog entry's condition reads (its scalars too); a check whose
// inputs change only devices (or the backend) lists every tensor's device.
std::vector<Value> explain(const engine::OperatorDescription& op, const std::string& id, const StepArgs& args);

}  // namespace kda::cli
