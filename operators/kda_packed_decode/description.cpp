#include "operators/kda_packed_decode/description.hpp"

#include <fmt/format.h>

#include "operators/kda_common/contract_restated.hpp"
#include "operators/kda_packed_decode/contract.hpp"
#include "operators/kda_packed_decode/golden_cases.hpp"
#include "operators/kda_packed_decode/reference_step.hpp"
#include "operators/replayssm_family/case_driver.hpp"
#include "operators/replayssm_family/sample_space.hpp"
#include "operators/replayssm_family/valid_call.hpp"
#include "reference/profile_emulation.hpp"

namespace kda::engine {
namespace {

// A ReplaySSM call config whose packed tensors are this operator's: `a` and `dt_bias` as
// this operator takes them; the ring fields stay, unused.
CallConfig packed_call(CallConfig c) {
  c.a_3d = c.dt_2d = false;
  return c;
}

CallSpec valid_spec(const CallConfig& c) {
  CallSpec s = make_valid_spec(packed_call(c));
  for (const char* name : {"d_cache", "k_cache", "g_cache", "write_pos", "force_flush"}) s.erase(name);
  return s;
}

const std::vector<ErrorInput>& error_inputs() {
  static const std::vector<ErrorInput> list = packed_decode_error_inputs();
  return list;
}

}  // namespace

const OperatorDescription& kda_packed_decode_operator() {
  // The catalog ids its contract and runtime checks raise (OperatorDescription::raises).
  static constexpr std::string_view kRaises[] = {
      "V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12", "V13", "V14", "V15", "V16",
      "V17", "V18", "V19", "V20", "V21", "V22", "X-DTYPE-FLOAT", "X-DTYPE-INDEX", "X-STRIDES", "X-EXTENTS",
      "X-BACKEND-CPU", "X-BACKEND-CUDA", "X-SLOT-INDEX", "X-DUP-SLOT"};
  static const ContractRestatement restatement = restated::kda_contract_restated(true);
  // Its function keeps beta in float32 (no rounding through b's dtype); its calls are kda_replayssm's at L = 1.
  static const ReplaySSMDriver driver = replayssm_case_driver(nullptr, /*beta_through_b=*/false);
  static const OperatorDescription op{
      .name = "kda_packed_decode",
      .summary = "SGLang's plain packed KDA decode: the state read and written every token, no rings",
      .tensors = kPackedDecodeTensors,
      .scalars = kKdaScalars,
      .bind = &packed_decode_args,
      .validate = &validate_packed_decode,
      .reference_step = &reference::packed_decode_step,
      .emulated_step = [](reference::ProfileEmulation& e, const StepArgs& given) {
        const StepArgs a = packed_decode_args(given);
        return e.packed_decode_step(a, validate_packed_decode(a, kda::Backend::Cpu));
      },
      .error_inputs = &error_inputs,
      .raises = kRaises,
      .sample_case = &sample_case,
      .sample_call = [](Chooser& ch, const SampleLimits& l) { return packed_call(sample_call_config(ch, l)); },
      .valid_spec = &valid_spec,
      .dims_of = [](const CallConfig& c) {
        Dims d = c.dims();
        d.L = 0;
        return d;
      },
      // One token per step flushes every row at L = 1: the rings, cursors and forced flushes
      // of the materialized case are never read, and the state is written every step.
      .fit_case = [](CaseConfig c) {
        c.L = 1;
        c.a_3d = c.dt_bias_2d = false;
        c.force_flush = false;
        c.random_cursors = false;
        c.flush_prob = 0;
        c.circular = c.prefix_gates = c.predecayed_keys = false;  // no ring
        c.ring_dtype = ScalarType::BFloat16;  // the config line's default: its line leaves the ring out
        return c;
      },
      .ok_line = [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.slots);
      },
      .golden_cases = &kda_packed_decode_golden_cases,
      .restated_contract = &restatement,
      .case_driver = &driver};
  return op;
}

}  // namespace kda::engine
