// The ReplaySSM family's driver type: the engine's CaseDriver with what each of the family's
// operators differs in for the float64 truth and model, and the lookup of an operator's.
#pragma once
#include "engine/driver/case_driver.hpp"
#include "operators/replayssm_family/truth_oracle.hpp"

namespace kda::engine {

// The family's driver of one of its operators: what the family plays its cases with, and what
// the operator's function differs in for the float64 truth and model (which compute the KDA
// ReplaySSM recurrence).
struct ReplaySSMDriver : CaseDriver {
  // The operator's calls as kda_replayssm's (GDN's scalar gates over the key channels, a
  // circular ring in logical order); null: they already are.
  KdaCallView as_kda_call = nullptr;
  // Its function rounds beta through b's dtype (ReplaySSM) or keeps it in float32 (the plain
  // packed decode).
  bool beta_through_b = true;
};

// The family's driver of `op` (std::logic_error for an operator of another family).
const ReplaySSMDriver& replayssm_driver_of(const OperatorDescription& op);

}  // namespace kda::engine
