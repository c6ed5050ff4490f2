// The CPU emulation of a rounding profile as a backend (reference/profile_emulation.hpp):
// "emulate:helion", "emulate:triton", each with ":directed" for the worst case. It declares
// its profile, so the suites judge it by exactly the bounds they apply to a kernel of that
// profile (the directed one by the bounds of directed rounding): `kda-harness emulate` runs
// them over many cases to check the error analysis (reference/README.md).
#pragma once
#include <memory>
#include <string>

#include "engine/backends/backend.hpp"

namespace kda::engine {

// spec: "helion" or "triton", optionally followed by ":directed". Throws
// std::invalid_argument for anything else.
std::unique_ptr<Backend> make_emulation_backend(const std::string& spec, const OperatorDescription& op);

}  // namespace kda::engine
