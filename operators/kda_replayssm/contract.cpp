// validate() (contract/validate.hpp, the harness's public entry point): kda_replayssm's whole
// contract in contract.md's order: P0, W1-W3 and V1-V22 (../kda_common/contract_v_checks.cpp),
// R1-R10 (contract_ring_checks.cpp), then the harness extensions
// (../kda_common/contract_extensions.cpp).
#include "contract/validate.hpp"

#include "operators/kda_common/contract_stages.hpp"

namespace kda {

Dims validate(const StepArgs& args, Backend backend) {
  detail::check_well_formed(args.mixed_qkv, "mixed_qkv", true);
  detail::check_well_formed(args.a, "a", true);
  detail::check_well_formed(args.b, "b", true);
  detail::check_well_formed(args.A_log, "A_log", true);
  detail::check_well_formed(args.dt_bias, "dt_bias", true);
  detail::check_well_formed(args.initial_state, "initial_state", true);
  detail::check_well_formed(args.d_cache, "d_cache", true);
  detail::check_well_formed(args.k_cache, "k_cache", true);
  detail::check_well_formed(args.g_cache, "g_cache", true);
  detail::check_well_formed(args.out, "out", true);
  detail::check_well_formed(args.ssm_state_indices, "ssm_state_indices", true);
  detail::check_well_formed(args.write_pos, "write_pos", true);
  detail::check_well_formed(args.force_flush, "force_flush", false);

  detail::ValidationState st;
  detail::check_packed(args, st);
  detail::check_replayssm(args, st);
  detail::check_extensions(args, st, backend);
  return Dims{st.batch, static_cast<int64_t>(st.H), st.HV, st.K, st.V, st.L, args.initial_state->shape[0]};
}

}  // namespace kda
