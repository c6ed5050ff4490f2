// The check that a backend refuses a call (one outside its envelope, or an invalid one):
// the step raises, and no byte of any tensor it may write changed.
#pragma once
#include <string>

#include "contract/step_args.hpp"
#include "engine/backends/backend.hpp"

namespace kda::engine {

// "" when the backend raised and wrote nothing (engine/description/row_plan.hpp's any_change); else what
// it did instead ("computed a call it should have refused", "raised \"...\" but changed
// out[0, 0, 1, 3] (row 0, value head 1) changed from nan to 0: a refused call must write nothing").
std::string refusal_problem(Backend& backend, const StepArgs& host);

}  // namespace kda::engine
