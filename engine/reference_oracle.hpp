// The CPU reference as an oracle: a second materialization of the case, stepped in
// lockstep with the backend by the operator's reference step (Rounding::Kernel). After every
// step, out (every row: padding/rejected rows exactly zero) and what the step wrote
// (checkpoints of flushed rows, ring records of appending rows) must agree within
// engine::bounds_vs_reference for the backend's profile at the step's gate mass, each block
// judged against its natural scale (compare.hpp's floors, computed from the reference in
// float64), so quantities that cancel are not judged relative to their tiny sum. At the end
// every checkpoint and ring record the rows still depend on is compared again. Every report
// names the tensor, the index, the row and the step of its worst block, and its worst element.
#pragma once
#include <memory>

#include "cases/case_tensors.hpp"
#include "engine/oracle.hpp"
#include "engine/operator.hpp"
#include "engine/profile.hpp"

namespace kda::engine {

// For a case as materialize() made it (of an operator's config: OperatorDescription::fit_case),
// before any step; the oracle keeps its own copy. Each later token's inputs come from the
// backend's tensors, which the driver filled (fill_token) before the step.
// directed: the backend rounds the worst way (engine/profile.hpp's bounds of directed rounding).
std::unique_ptr<Oracle> reference_oracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile,
                                         bool directed = false);

}  // namespace kda::engine
