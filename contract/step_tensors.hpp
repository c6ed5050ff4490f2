// StepTensors: the sixteen arguments of one step as owned HostTensors (data or metadata only),
// with the scalars. The JSON metadata reader, the case generator and the golden files all
// produce one; args() lends the StepArgs view that validate(), the reference and the kernel take.
#pragma once
#include <optional>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"

namespace kda {

struct StepTensors {
  HostTensor mixed_qkv, a, b, A_log, dt_bias, initial_state, d_cache, k_cache, g_cache, out, ssm_state_indices,
      write_pos;
  std::optional<HostTensor> force_flush;
  double scale = 1.0;
  bool use_qk_l2norm_in_kernel = false;
  std::optional<double> lower_bound;

  // Views of the arguments (pointers into this object: do not move it while they are used).
  StepArgs args();
};

}  // namespace kda
