// The recurrent decode family's calls as its operators' descriptions declare them: the sample
// space's calls (T in 1..4), a valid call's metadata and dims, and the error inputs, for a
// gate per key channel (fla_recurrent_kda) or per value head (fla_recurrent_gdn).
#pragma once
#include <string>
#include <vector>

#include "engine/description/error_inputs.hpp"
#include "engine/description/operator.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda::engine {

// A call of the sample space: T = 1 (the common decode) in one of two, else a speculative
// verify of T in 2..4.
CallConfig sample_fla_call(Chooser& ch, const SampleLimits& limits);
Dims fla_dims_of(const CallConfig& c);
// `validate`'s line for a valid call: "ok B=.. T=.. H=.. HV=.. K=.. V=.. slots=..".
std::string fla_ok_line(const Dims& d);

// A valid call's metadata: CallConfig's B, H, group, K, V, slots, dtypes and `tokens` (T);
// g and dt_bias of the gate's width; 2-D indices when T > 1, num_accepted_tokens beside them;
// a K-first pool.
CallSpec fla_recurrent_valid_spec(const CallConfig& c, FlaGate gate);

// The error inputs, in the family's check order (error_inputs.cpp).
std::vector<ErrorInput> fla_recurrent_error_inputs(FlaGate gate);

}  // namespace kda::engine
