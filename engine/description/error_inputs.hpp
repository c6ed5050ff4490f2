// Error inputs, operator-generic: a list, in the operator's check order, of mutations of a
// valid call, each naming the catalog id it must raise. Each breaks its own check and no
// earlier one, even combined with others; a set is applied latest check first, so the
// earliest applied check's expectation is the final one. Expected messages are rendered from
// the error catalog (contract/catalog_message.hpp), never written here.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contract/step_args.hpp"
#include "engine/description/call_description.hpp"
#include "contract/catalog_message.hpp"
#include "engine/description/chooser.hpp"

namespace kda::engine {

struct Expected {
  std::string id, message;
};
// A device other than d (another type, or another CUDA index).
DLDevice other_device(DLDevice d);

// The catalog's message for id, rendered with args.
Expected expect(std::string_view id, std::initializer_list<MessageArg> args = {});

// What a mutation edits: the call, the sizes of the valid call it came from, and the current
// row count (mixed_qkv.shape[0], which a mutation may set to 0).
struct MutationTarget {
  CallSpec spec;
  Dims dims;
  int64_t B = 0;
};

struct ErrorInput {
  std::string label;  // the check's label in the operator's contract (P0, W1, ..., X-STRIDES)
  // Breaks the check in one of its ways (picked by variant) and returns what validate() must
  // raise; nullopt, nothing edited, where the check cannot be broken on this call.
  std::function<std::optional<Expected>(MutationTarget&, uint32_t variant)> apply;
};

struct Mutation {
  std::size_t input = 0;  // index into the list
  uint32_t variant = 0;
};

struct MutationResult {
  std::optional<Expected> expected;  // of the earliest applied input; nullopt: none applied
  std::vector<Mutation> applied;
};
// Applies a set on distinct inputs, latest first.
MutationResult apply_mutations(std::span<const ErrorInput> inputs, MutationTarget& target, std::vector<Mutation> set);

// Up to max_size mutations on distinct inputs, variants 0..63.
std::vector<Mutation> sample_mutations(Chooser& c, std::size_t input_count, int max_size);

// The index of the input labelled `label` (std::out_of_range when none is).
std::size_t error_input_index(std::span<const ErrorInput> inputs, std::string_view label);

// "V10#2 + R6#0".
std::string describe(std::span<const ErrorInput> inputs, const std::vector<Mutation>& set);

}  // namespace kda::engine
