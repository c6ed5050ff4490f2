#include "contract/step_tensors.hpp"

namespace kda {

StepArgs StepTensors::args() {
  StepArgs s;
  s.mixed_qkv = &mixed_qkv.dl();
  s.a = &a.dl();
  s.b = &b.dl();
  s.A_log = &A_log.dl();
  s.dt_bias = &dt_bias.dl();
  s.scale = scale;
  s.initial_state = &initial_state.dl();
  s.d_cache = &d_cache.dl();
  s.k_cache = &k_cache.dl();
  s.g_cache = &g_cache.dl();
  s.out = &out.dl();
  s.ssm_state_indices = &ssm_state_indices.dl();
  s.write_pos = &write_pos.dl();
  s.force_flush = force_flush ? &force_flush->dl() : nullptr;
  s.use_qk_l2norm_in_kernel = use_qk_l2norm_in_kernel;
  s.lower_bound = lower_bound;
  return s;
}

}  // namespace kda
