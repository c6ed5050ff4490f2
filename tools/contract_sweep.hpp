// The contract sweep of `kda-harness check`: random VALID calls (metadata only, any shape,
// any dtype mix, CPU or CUDA devices, compact, null or slot-padded strides) must pass
// validate() with the dims they were built with; then the same calls broken by one or two
// targeted mutations (one per check of contract.md, and the harness's metadata extensions)
// must fail with the EARLIEST broken check's catalog id and exact message. The expected
// messages are written here from contract.md's templates (documented checks) and taken
// from the error catalog (the harness's fixed extension messages); each must also match
// exactly one catalog entry's pattern.
#pragma once
#include <cstdint>
#include <string>

namespace kda::cli {

struct SweepResult {
  bool pass = true;
  int64_t validations = 0;  // validate() calls made
  std::string config;       // the valid call, one line
  std::string detail;       // the first mismatch
};

// One sweep case: a valid call and `mutation_sets` broken variants of it.
SweepResult contract_sweep_case(uint64_t seed, uint64_t index, int mutation_sets = 6);

}  // namespace kda::cli
