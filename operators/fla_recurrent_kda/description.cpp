#include "operators/fla_recurrent_kda/description.hpp"

#include "operators/fla_recurrent_common/call.hpp"
#include "operators/fla_recurrent_common/case_tensors.hpp"
#include "operators/fla_recurrent_common/driver.hpp"
#include "operators/fla_recurrent_common/golden_cases.hpp"
#include "operators/fla_recurrent_kda/contract.hpp"
#include "operators/fla_recurrent_kda/reference_step.hpp"
#include "operators/replayssm_family/sample_space.hpp"

namespace kda::engine {
namespace {

const std::vector<ErrorInput>& error_inputs() {
  static const std::vector<ErrorInput> list = fla_recurrent_error_inputs(FlaGate::PerKey);
  return list;
}

std::vector<golden::GoldenSpec> golden_cases() { return fla_recurrent_golden_cases(FlaGate::PerKey); }

}  // namespace

CallSpec fla_recurrent_kda_valid_spec(const CallConfig& c) { return fla_recurrent_valid_spec(c, FlaGate::PerKey); }

const OperatorDescription& fla_recurrent_kda_operator() {
  // The catalog ids its contract and runtime checks raise (OperatorDescription::raises).
  static constexpr std::string_view kRaises[] = {
      "X-STRIDES", "X-EXTENTS", "X-BACKEND-CPU", "X-BACKEND-CUDA", "X-SLOT-INDEX", "X-DUP-SLOT",
      "X-FLA-NEG-EIGVAL", "X-FLA-RANK", "X-FLA-EMPTY", "X-FLA-HEADS", "X-FLA-SHAPE", "X-FLA-OUT-SHAPE",
      "X-FLA-INDICES", "X-FLA-ACCEPTED", "X-FLA-DTYPE", "X-FLA-CONTIGUOUS", "X-FLA-ACCEPTED-VALUE"};
  static const OperatorDescription op{
      .name = "fla_recurrent_kda",
      .summary = "flash-linear-attention's recurrent KDA decode: T tokens per sequence on a state pool updated in place",
      .tensors = kFlaRecurrentKdaTensors,
      .scalars = kFlaRecurrentKdaScalars,
      .bind = &fla_recurrent_kda_args,
      .validate = &validate_fla_recurrent_kda,
      .reference_step = &reference::fla_recurrent_kda_step,
      .error_inputs = &error_inputs,
      .raises = kRaises,
      .sample_case = &sample_case,
      .sample_call = &sample_fla_call,
      .valid_spec = &fla_recurrent_kda_valid_spec,
      .dims_of = &fla_dims_of,
      .fit_case = [](CaseConfig c) { return fit_fla_case(c, FlaGate::PerKey); },
      .ok_line = &fla_ok_line,
      .golden_cases = &golden_cases,
      .case_driver = &fla_recurrent_driver()};
  return op;
}

}  // namespace kda::engine
