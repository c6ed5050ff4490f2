// The ReplaySSM family's valid calls: its tensor arguments by name, and the valid call of a
// configuration (CallConfig -> make_valid_spec) the contract suites and error inputs start
// from. The descriptions of the operators with ReplaySSM's signature point at these.
#pragma once
#include <dlpack/dlpack.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"

namespace kda::engine {

// The tensor arguments in contract.md's order; force_flush is optional.
inline constexpr std::array<std::string_view, 13> kReplaySSMTensors = {
    "mixed_qkv", "a",       "b",       "A_log", "dt_bias",           "initial_state", "d_cache",
    "k_cache",   "g_cache", "out",     "ssm_state_indices", "write_pos", "force_flush"};

// The scalar arguments of the KDA operators, in contract.md's order.
inline constexpr std::array<std::string_view, 3> kKdaScalars = {"scale", "use_qk_l2norm_in_kernel", "lower_bound"};

// The valid call of a configuration: the tensors in kReplaySSMTensors' order (force_flush where
// the config has it), compact save for the config's strided layouts.
CallSpec make_valid_spec(const CallConfig& c);
// A compact tensor of a valid call: null strides where the config asks for them, and the
// config's odd stride (unit_stride) on the dims of size 1 before `raw_from` (from there on an
// operator's check reads the raw strides).
TensorSpec compact_call_tensor(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape, std::size_t raw_from);

}  // namespace kda::engine
