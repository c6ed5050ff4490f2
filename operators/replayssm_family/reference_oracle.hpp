// The CPU reference as an oracle: a second materialization of the case whose operator
// reference step (Rounding::Kernel) computes each step from exactly what the backend reads:
// the token's inputs and the checkpoints and ring records the backend's earlier steps stored
// (copied in before every step). After every step, out (every row: padding/rejected rows
// exactly zero) and what the step wrote (checkpoints of flushed rows, ring records of
// appending rows) must agree within the sum of the two sides' one-step running error budgets
// of the float64 step on those tensors (reference/tolerance.hpp's ErrorBudget, at the
// backend's profile and the reference's; docs/error-analysis.md), each block judged against
// the float64 step's scale. What accumulates over a rollout is the truth suite's to judge.
// Every report names the tensor, the index, the row and the step of its worst block, and its
// worst element.
#pragma once
#include <memory>

#include "engine/description/operator.hpp"
#include "engine/description/profile.hpp"
#include "engine/oracles/oracle.hpp"
#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {

// For a case as materialize_replayssm_case() made it (of an operator's config: OperatorDescription::fit_case),
// before any step; the oracle keeps its own copy. Each later token's inputs come from the
// backend's tensors, which the driver filled (fill_token) before the step.
// directed: the backend rounds the worst way (engine/description/profile.hpp's bounds of directed rounding).
std::unique_ptr<Oracle> reference_oracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile,
                                         bool directed = false);

}  // namespace kda::engine
