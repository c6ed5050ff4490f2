// The check that a backend refuses a call (one outside its envelope, or an invalid one):
// the step raises, and no byte of any tensor it may write changed.
#pragma once
#include <string>

#include "contract/step_args.hpp"
#include "engine/backend.hpp"

namespace kda::engine {

// "" when the backend raised and wrote nothing; else what it did instead ("computed it",
// "raised ... but changed out: byte 12").
std::string refusal_problem(Backend& backend, const StepArgs& host);

}  // namespace kda::engine
