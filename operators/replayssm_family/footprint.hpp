// The ReplaySSM family's footprint: what a step of its call may write, from the rows' plans.
#pragma once
#include <string>
#include <vector>

#include "engine/description/row_plan.hpp"

namespace kda::engine {

// "" when every byte that changed between `before` and the tensors of `after` lies inside an
// element the step may write for the plans' accepted rows (out: every element; a checkpoint
// (full or history): the row's [slot, hv]; an append (or history step): d/g records
// [slot, hv, record] and the k record [slot, h, record]); else a description of the first
// byte changed outside.
std::string footprint_violation(const WrittenBytes& before, const StepArgs& after, const Dims& dims,
                                const std::vector<RowPlan>& plans);

}  // namespace kda::engine
