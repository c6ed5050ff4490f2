// The contract of SGLang's plain packed KDA decode (spec/packed-decode.md): V1-V22 of
// contract.md on `a` and `dt_bias` as given (no W1-W3 flattening: a 3-D `a` fails V3, a 2-D
// `dt_bias` V5), then the harness extensions that apply to a call without rings. Its
// arguments are StepArgs with d_cache, k_cache, g_cache, write_pos and force_flush null.
#pragma once
#include <array>
#include <string_view>

#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda {

// The tensor arguments of the plain packed decode, in its signature's order.
inline constexpr std::array<std::string_view, 8> kPackedDecodeTensors = {
    "mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state", "out", "ssm_state_indices"};

// Returns the inferred dims (L = 0: no ring), or throws ContractError with the first failing
// check's id and exact message. The runtime values are check_runtime_values()'s (write_pos
// null: only the slot checks).
Dims validate_packed_decode(const StepArgs& args, Backend backend = Backend::Any);

// The same arguments without the ReplaySSM-only tensors.
StepArgs packed_decode_args(StepArgs args);

}  // namespace kda
