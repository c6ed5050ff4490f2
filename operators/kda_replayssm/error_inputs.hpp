// The error inputs of ReplaySSM: one per check of contract.md, in its order (P0, W1, W2,
// V1-V22, R1-R10; P0 raises V1's message and R4-short, a d_cache of fewer than 3 dims, R5's),
// then one per metadata extension of the harness (X-VIEW-A, X-DTYPE-FLOAT, X-DTYPE-INDEX,
// X-RING-SLOTS, X-STRIDES, X-EXTENTS, X-BACKEND). Each holds on every valid call of the sample space,
// K = V = 1 and B = 1024 included, or declines (nullopt) where its check cannot be broken.
#pragma once
#include <vector>

#include "engine/description/error_inputs.hpp"

namespace kda::engine {

const std::vector<ErrorInput>& replayssm_error_inputs();

// The two halves of the list (replayssm_error_inputs_packed.cpp: P0, W1, W2, V1-V22; replayssm_error_inputs_ring.cpp).
std::vector<ErrorInput> validator_error_inputs();
std::vector<ErrorInput> replayssm_ring_and_extension_error_inputs();

}  // namespace kda::engine
