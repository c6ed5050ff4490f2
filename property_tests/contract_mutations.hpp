// Targeted mutations of a valid call, one per check of contract.md (plus the harness's
// metadata extensions). Each mutation is written to break ITS check and no check before it,
// even combined with other mutations; applied in reverse check order, the earliest-tagged
// mutation is applied last, so its expectation (recorded when it is applied) is the final one.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "property_tests/contract_call_spec.hpp"

namespace kda::test {

// In check order. P0 raises V1's message, R4Short (a d_cache of < 3 dims) R5's.
enum class Check : uint8_t {
  P0, W1, W2, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21,
  V22, R1, R2, R3, R4Short, R4, R5, R6, R7, R8, R9, R10, XViewA, XDtypeFloat, XDtypeIndex, XRingSlots,
  XStrides, XBackend, kCount
};
inline constexpr int kCheckCount = static_cast<int>(Check::kCount);
const char* check_name(Check c);

struct Mutation {
  Check check = Check::P0;
  uint32_t variant = 0;  // picks one of the mutation's ways to break its check
};
void showValue(const Mutation& m, std::ostream& os);

struct Expected {
  std::string id, message;
};

// The mutable state a mutation sees: the spec and the config it came from (B may become 0).
struct MutationTarget {
  CallSpec spec;
  ValidCallConfig config;
  int64_t B;  // current mixed_qkv.shape[0]
};

// Applies m; returns what validate() must raise if m is the earliest applied check, or
// nullopt (spec untouched) where m cannot break its check in the current state.
std::optional<Expected> apply_mutation(MutationTarget& t, const Mutation& m);

// Applies a set (distinct checks) in reverse check order; returns the expectation of the
// earliest check that applied, and the list of those applied (for reports).
struct MutationResult {
  std::optional<Expected> expected;
  std::vector<Mutation> applied;
};
MutationResult apply_mutations(MutationTarget& t, std::vector<Mutation> set);

}  // namespace kda::test
