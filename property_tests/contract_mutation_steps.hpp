// The individual mutations of contract_mutations.hpp, split by stage.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "property_tests/contract_mutations.hpp"

namespace kda::test {

// P0, W1, W2, V1-V22 (contract_mutations_packed.cpp).
std::optional<Expected> mutate_packed(MutationTarget& t, const Mutation& m);
// R1-R10 and the metadata extensions (contract_mutations_replayssm.cpp).
std::optional<Expected> mutate_replayssm_or_extension(MutationTarget& t, const Mutation& m);

// The catalog's exact message for an id whose message is fixed.
Expected fixed_message(const char* id);
// A device that differs from d.
DLDevice other_device(DLDevice d);
std::string tuple_text(const std::vector<int64_t>& v);

}  // namespace kda::test
