// RapidCheck generators for the contract tests: valid call configs (contract.md's ranges and
// the layouts the contract allows) and sets of targeted mutations.
#pragma once
#include <rapidcheck.h>

#include <vector>

#include "property_tests/contract_call_spec.hpp"
#include "property_tests/contract_mutations.hpp"

namespace kda::test {

// B 1..max_B, H 1..8, HV = H x 1..8, K and V powers of two 16..max_head, L 1..max_L,
// slots >= the number of non-padding rows; a 2-D or 3-D, dt_bias 1-D or 2-D, optional
// force_flush, envelope state, odd strides on size-1 dims, int32/int64 indices, any device.
rc::Gen<ValidCallConfig> gen_valid_config(int64_t max_B = 64, int64_t max_head = 256, int64_t max_L = 64);

// A set of mutations on distinct checks (0..max_size of them).
struct MutationSet {
  std::vector<Mutation> items;
};
void showValue(const MutationSet& s, std::ostream& os);
rc::Gen<MutationSet> gen_mutation_set(int max_size = 4);

}  // namespace kda::test
