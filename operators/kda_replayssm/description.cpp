// ReplaySSM as an operator description: the family's tensors and sample space
// (../replayssm_family/README.md), the error inputs, contract.md's validate() (contract.cpp),
// its reference step and its contract restated (../kda_common/contract_restated.hpp, with its
// reference step restated).
#include "operators/kda_replayssm/description.hpp"

#include <fmt/format.h>

#include "operators/kda_common/contract_restated.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"
#include "operators/kda_replayssm/golden_cases.hpp"
#include "operators/kda_replayssm/reference_step.hpp"
#include "operators/kda_replayssm/reference_step_restated.hpp"
#include "operators/replayssm_family/case_driver.hpp"
#include "operators/replayssm_family/sample_space.hpp"
#include "operators/replayssm_family/valid_call.hpp"
#include "reference/profile_emulation.hpp"

namespace kda::engine {

const OperatorDescription& kda_replayssm_operator() {
  // The catalog ids its contract and runtime checks raise (OperatorDescription::raises).
  static constexpr std::string_view kRaises[] = {
      "W1", "W2", "V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12", "V13", "V14",
      "V15", "V16", "V17", "V18", "V19", "V20", "V21", "V22", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8",
      "R9", "R10", "X-VIEW-A", "X-DTYPE-FLOAT", "X-DTYPE-INDEX", "X-RING-SLOTS", "X-STRIDES", "X-EXTENTS",
      "X-BACKEND-CPU", "X-BACKEND-CUDA", "X-SLOT-INDEX", "X-WRITE-POS", "X-DUP-SLOT"};
  static const ContractRestatement restatement = [] {
    ContractRestatement r = restated::kda_contract_restated(false);
    r.reference_step_holds = &restated::kda_replayssm_reference_step;
    return r;
  }();
  static const ReplaySSMDriver driver = replayssm_case_driver();
  static const OperatorDescription op{
      .name = "kda_replayssm",
      .summary = "SGLang's ReplaySSM decode step: checkpoint state plus rings of (delta, key, gate) records",
      .tensors = kReplaySSMTensors,
      .scalars = kKdaScalars,
      .bind = [](StepArgs a) { return a; },
      .validate = [](const StepArgs& a, kda::Backend b) { return kda::validate(a, b); },
      .reference_step = [](const StepArgs& a, reference::Rounding r) { return reference::replayssm_step(a, r); },
      .emulated_step = [](reference::ProfileEmulation& e, const StepArgs& a) { return e.replayssm_step(a); },
      .error_inputs = &replayssm_error_inputs,
      .raises = kRaises,
      .sample_case = &sample_case,
      .sample_call = &sample_call_config,
      .valid_spec = &make_valid_spec,
      .dims_of = [](const CallConfig& c) { return c.dims(); },
      .fit_case = [](CaseConfig c) {
        c.circular = c.prefix_gates = c.predecayed_keys = false;  // the Helion wrapper has no ring variants
        return c;
      },
      .ok_line = [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
      },
      .golden_cases = &kda_replayssm_golden_cases,
      .restated_contract = &restatement,
      .case_driver = &driver};
  return op;
}

}  // namespace kda::engine
