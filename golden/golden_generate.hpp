// The generator of the golden set: a spec (engine/description/golden_spec.hpp) -> a GoldenCase whose
// expected results are computed by the CPU reference of the spec's operator with the kernel's
// rounding points (Rounding::Kernel). Deterministic: the same spec gives the same case, bit
// for bit (no time, no randomness beyond the case's seed). Throws GenerationError for a spec
// that does not hold.
#pragma once
#include "engine/description/golden_spec.hpp"
#include "golden/golden_case.hpp"

namespace kda::golden {

// The generator's tag in kda.generator.
inline constexpr const char* kGeneratorTag = "kda-harness golden regen: reference::replayssm_step, Rounding::Kernel";

GoldenCase generate_case(const GoldenSpec& spec);

}  // namespace kda::golden
