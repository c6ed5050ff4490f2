// fla_recurrent_kda's CPU reference step: the family's (../fla_recurrent_common/recurrence.hpp)
// with a gate per key channel.
#pragma once
#include "contract/step_args.hpp"
#include "operators/fla_recurrent_common/recurrence.hpp"
#include "reference/rounding.hpp"

namespace kda::reference {

inline Dims fla_recurrent_kda_step(const StepArgs& args, Rounding rounding = Rounding::Kernel) {
  return fla_recurrent_step(args, rounding, FlaGate::PerKey);
}

}  // namespace kda::reference
