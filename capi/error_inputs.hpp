// The error inputs the contract suite hands a backend: one per documented check of
// contract.md (W1, W2, V1-V22, R1-R10, less the three device checks, which host tensors
// cannot break), each an edit of a valid case's tensors that breaks that check and no earlier
// one. The message a backend must raise is not stored here: it is what validate() raises on
// the edited call (validate is measured byte-identical with SGLang's wrapper), and the suite
// checks that validate's id is the one the edit names.
#pragma once
#include <functional>
#include <vector>

#include "cases/case_tensors.hpp"

namespace kda::capi {

struct ErrorInput {
  const char* id;  // the catalog id the edit must raise
  // Replaces one tensor of the case (fresh, zero-filled storage of the broken shape).
  std::function<void(CaseTensors&, const Dims&)> apply;
};

const std::vector<ErrorInput>& error_inputs();

// What the edits need of the valid case: B, HV, K and V of at least 2 (a case drawn with
// fewer is widened by the suite).
inline constexpr int64_t kErrorInputMinSize = 2;

}  // namespace kda::capi
