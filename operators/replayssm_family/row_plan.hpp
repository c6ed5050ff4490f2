// The ReplaySSM family's row plan (engine/description/row_plan.hpp's RowPlan per row), from the
// host-resident ssm_state_indices / write_pos / force_flush, and cache_base under
// circular_replay: padding for a negative slot; rejected for a slot past the pool, a cursor or
// (circular) a base outside [0, L-1], or a slot two live rows name; else the ring step the
// cursor and force_flush make (contract/ring_protocol.hpp).
#pragma once
#include <vector>

#include "engine/description/row_plan.hpp"

namespace kda::engine {

std::vector<RowPlan> plan_rows(const StepArgs& host, const Dims& dims);

}  // namespace kda::engine
