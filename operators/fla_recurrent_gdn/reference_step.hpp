// fla_recurrent_gdn's CPU reference step: the family's (../fla_recurrent_common/recurrence.hpp)
// with one gate per value head, repeated over the K channels of reference/'s plain recurrence.
#pragma once
#include "contract/step_args.hpp"
#include "operators/fla_recurrent_common/recurrence.hpp"
#include "reference/rounding.hpp"

namespace kda::reference {

inline Dims fla_recurrent_gdn_step(const StepArgs& args, Rounding rounding = Rounding::Kernel) {
  return fla_recurrent_step(args, rounding, FlaGate::PerHead);
}

}  // namespace kda::reference
