// The operator a kda_call names (its `op`, looked up in the engine's table) and the call's
// arguments as that operator takes them: every one of its tensors present (force_flush may
// be absent, as contract.md allows None there), no tensor it does not take.
#pragma once
#include <string_view>

#include "contract/step_args.hpp"
#include "contract/step_fields.hpp"
#include "engine/description/operator.hpp"
#include "kda_harness/plugin.h"

namespace kda::capi {

// The arguments an operator's call may leave out (contract/step_fields.hpp).
using kda::optional_tensor;

// std::invalid_argument for a NULL call or op, or an op the table does not hold.
const engine::OperatorDescription& operator_of(const kda_call* call);

// The call's arguments, bound to the operator (std::invalid_argument naming a missing or an
// extra tensor, or a missing scale).
StepArgs operator_args(const kda_call* call, const engine::OperatorDescription& op);

}  // namespace kda::capi
