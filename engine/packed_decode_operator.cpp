#include "engine/packed_decode_operator.hpp"

#include <fmt/format.h>

#include "contract/validate_packed_decode.hpp"
#include "engine/replayssm_sample_space.hpp"
#include "reference/packed_decode_step.hpp"

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

const OperatorDescription& packed_decode_operator() {
  static const OperatorDescription op{
      "kda_packed_decode",
      "SGLang's plain packed KDA decode: the state read and written every token, no rings",
      kPackedDecodeTensors,
      &packed_decode_args,
      &validate_packed_decode,
      &reference::packed_decode_step,
      &error_inputs,
      [](Chooser& ch, const SampleLimits& l) { return packed_call(sample_call_config(ch, l)); },
      &valid_spec,
      [](const CallConfig& c) {
        Dims d = c.dims();
        d.L = 0;
        return d;
      },
      // One token per step flushes every row at L = 1: the rings, cursors and forced flushes
      // of the materialized case are never read, and the state is written every step.
      [](CaseConfig c) {
        c.L = 1;
        c.a_3d = c.dt_bias_2d = false;
        c.force_flush = false;
        c.random_cursors = false;
        c.flush_prob = 0;
        return c;
      },
      false,
      [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.slots);
      }};
  return op;
}

}  // namespace kda::engine
