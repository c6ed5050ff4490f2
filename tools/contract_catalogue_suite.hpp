// The second contract suite of `kda-harness check`: the contract tests' own mutation
// catalogue (property_tests/contract_mutations.hpp: every check of contract.md and every
// metadata extension, each with its variants, combined in sets of up to four) applied to
// random valid calls drawn with the harness's generator instead of RapidCheck. It runs the
// contract property's oracle inside the main job; tools/contract_sweep.hpp is a second,
// independently written oracle.
#pragma once
#include <cstdint>
#include <string>

namespace kda::cli {

struct CatalogueResult {
  bool pass = true;
  std::string config, detail;
};

CatalogueResult contract_catalogue_case(uint64_t seed, uint64_t index, int mutation_sets = 4);

}  // namespace kda::cli
