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

#include "cases/case_config.hpp"
#include "engine/oracle.hpp"
#include "engine/operator.hpp"
#include "engine/profile.hpp"

namespace kda::engine {

// For a case materialized from `config` (an operator's case: OperatorDescription::fit_case).
std::unique_ptr<Oracle> reference_oracle(const CaseConfig& config, const OperatorDescription& op, Profile profile);

}  // namespace kda::engine
