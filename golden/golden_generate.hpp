// The generator of the golden set: a spec (golden_catalog.hpp) -> a GoldenCase whose
// expected results are computed by the CPU reference with the kernel's rounding points
// (reference::replayssm_step, Rounding::Kernel). Deterministic: the same spec gives the
// same case, bit for bit (no time, no randomness beyond the case's seed).
#pragma once
#include <set>
#include <stdexcept>

#include "golden/golden_case.hpp"
#include "golden/golden_catalog.hpp"

namespace kda::golden {

// A spec that does not hold: a claimed row pattern missing, or an error case whose call
// does not raise the stated error.
class GenerationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The generator's tag in kda.generator.
inline constexpr const char* kGeneratorTag = "kda-harness golden regen: reference::replayssm_step, Rounding::Kernel";

GoldenCase generate_case(const GoldenSpec& spec);

// The row patterns a rollout of the spec's config exhibits (with the spec's scripted
// flushes), from the index tensors alone.
std::set<Feature> row_features(const GoldenSpec& spec);

}  // namespace kda::golden
