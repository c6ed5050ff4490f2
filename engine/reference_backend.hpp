#pragma once
#include <memory>

#include "engine/backend.hpp"
#include "reference/replayssm_step.hpp"

namespace kda::engine {

// Rounding::Kernel: "reference"; Rounding::Off: "reference-double".
std::unique_ptr<Backend> make_reference_backend(reference::Rounding rounding);

}  // namespace kda::engine
