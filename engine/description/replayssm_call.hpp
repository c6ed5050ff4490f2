// ReplaySSM's side of the call description: its tensor arguments by name, the valid calls
// the contract suites start from (CallConfig -> make_valid_spec), and the binding of a built
// call to StepArgs.
#pragma once
#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "contract/scalar_type.hpp"
#include "contract/step_args.hpp"
#include "contract/step_tensors.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_description.hpp"

namespace kda::engine {

// The tensor arguments in contract.md's order; force_flush is optional.
inline constexpr std::array<std::string_view, 13> kReplaySSMTensors = {
    "mixed_qkv", "a",       "b",       "A_log", "dt_bias",           "initial_state", "d_cache",
    "k_cache",   "g_cache", "out",     "ssm_state_indices", "write_pos", "force_flush"};

// The scalar arguments of the KDA operators, in contract.md's order.
inline constexpr std::array<std::string_view, 3> kKdaScalars = {"scale", "use_qk_l2norm_in_kernel", "lower_bound"};

// A VALID call (every field within contract.md's rules), metadata only.
struct CallConfig {
  int64_t B = 3, H = 2, group = 2, K = 128, V = 128, L = 4, slots = 5;
  int64_t tokens = 1;  // T, tokens per sequence, of an operator that takes several (1 for the others)
  bool a_3d = false, dt_2d = false, force_flush = true;
  int64_t envelope_pad = 0;  // > 0: state and rings get slot stride (compact + pad)
  int64_t unit_stride = 1;   // odd > 1: dims of size 1 get this stride (where no check reads it)
  bool null_strides = true;  // compact tensors leave DLTensor::strides null
  ScalarType act = ScalarType::BFloat16, state = ScalarType::Float32, ring = ScalarType::BFloat16,
             out = ScalarType::BFloat16, index = ScalarType::Int32;
  DLDevice device{kDLCPU, 0};
  kda::Backend backend = kda::Backend::Any;

  int64_t HV() const { return H * group; }
  Dims dims() const { return {B, H, HV(), K, V, L, slots}; }
};
std::string to_string(const CallConfig& c);

CallSpec make_valid_spec(const CallConfig& c);
// A compact tensor of a valid call: null strides where the config asks for them, and the
// config's odd stride (unit_stride) on the dims of size 1 before `raw_from` (from there on an
// operator's check reads the raw strides).
TensorSpec compact_call_tensor(const CallConfig& c, DLDataType dtype, std::vector<int64_t> shape, std::size_t raw_from);
// The metadata of a step's tensors (data not copied).
CallSpec spec_of(StepTensors& t, kda::Backend backend = kda::Backend::Any);
// StepArgs over a ReplaySSM call's tensors, found by name (nullptr: absent; the scalars at
// their defaults).
StepArgs step_args(const std::function<DLTensor*(std::string_view)>& tensor);
inline StepArgs step_args(BuiltCall& call) {
  return step_args([&call](std::string_view name) { return call.tensor(name); });
}

}  // namespace kda::engine
