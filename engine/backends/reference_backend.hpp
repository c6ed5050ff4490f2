#pragma once
#include <memory>

#include "engine/backends/backend.hpp"
#include "reference/rounding.hpp"

namespace kda::engine {

// The operator's reference step. Rounding::Kernel: "reference"; Rounding::Off: "reference-double".
std::unique_ptr<Backend> make_reference_backend(reference::Rounding rounding,
                                                const OperatorDescription& op = default_operator());

}  // namespace kda::engine
