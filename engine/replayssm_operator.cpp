// ReplaySSM as an operator description: the pieces of replayssm_call, the sample space and
// the error inputs, with contract.md's validate() and the reference's ReplaySSM step.
#include <fmt/format.h>

#include "engine/operator.hpp"
#include "engine/replayssm_error_inputs.hpp"
#include "engine/replayssm_sample_space.hpp"

namespace kda::engine {

const OperatorDescription& replayssm_operator() {
  static const OperatorDescription op{
      "kda_replayssm",
      "SGLang's ReplaySSM decode step: checkpoint state plus rings of (delta, key, gate) records",
      kReplaySSMTensors,
      [](StepArgs a) { return a; },
      [](const StepArgs& a, kda::Backend b) { return kda::validate(a, b); },
      [](const StepArgs& a, reference::Rounding r) { return reference::replayssm_step(a, r); },
      &replayssm_error_inputs,
      &sample_call_config,
      &make_valid_spec,
      [](const CallConfig& c) { return c.dims(); },
      [](CaseConfig c) { return c; },
      true,
      [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
      }};
  return op;
}

}  // namespace kda::engine
