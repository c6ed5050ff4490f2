// A case's tensors: the sixteen arguments of a call and the config they were made from. Each
// family fills them in its own way (its case driver's materialize: the ReplaySSM family's
// operators/replayssm_family/case_tensors.hpp, fla's operators/fla_recurrent_common/case_tensors.hpp).
#pragma once
#include "cases/case_config.hpp"
#include "contract/step_tensors.hpp"

namespace kda {

// The sixteen arguments (StepTensors) of a rollout, plus the config they came from and the
// token whose inputs they hold.
struct CaseTensors : StepTensors {
  CaseConfig config;
  int64_t token = 0;  // which token the per-token inputs hold
};

}  // namespace kda
