// StepTensors: the arguments of one step (contract/step_fields.hpp) as owned HostTensors
// (data or metadata only), with the scalars. The JSON metadata reader, the case generator and the golden files all
// produce one; args() lends the StepArgs view that validate(), the reference and the kernel take.
#pragma once
#include <string_view>
#include <optional>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"

namespace kda {

struct StepTensors {
  HostTensor mixed_qkv, a, b, A_log, dt_bias, initial_state, d_cache, k_cache, g_cache, out, ssm_state_indices,
      write_pos;
  std::optional<HostTensor> force_flush, cache_base;
  // fla_recurrent_kda's tensors, absent (null in args()) in the other operators' calls.
  std::optional<HostTensor> q, k, v, g, beta, num_accepted_tokens;
  double scale = 1.0;
  bool use_qk_l2norm_in_kernel = false;
  std::optional<double> lower_bound;
  int64_t nk = 2;
  bool circular_replay = false, prefix_gate_cache = false, predecayed_k_cache = false;
  bool use_gate_in_kernel = false, use_beta_sigmoid_in_kernel = false, allow_neg_eigval = false, state_v_first = false;

  // The tensor of that name (contract/step_fields.hpp); an optional one is made empty first
  // when absent. std::invalid_argument for a name that is no argument.
  HostTensor& at(std::string_view name);
  // Whether the named argument may be absent (an optional one of the members above).
  static bool is_optional(std::string_view name);
  // Makes the named optional tensor absent; std::invalid_argument for a required one.
  void drop(std::string_view name);

  // Views of the arguments (pointers into this object: do not move it while they are used).
  StepArgs args();
};

}  // namespace kda
