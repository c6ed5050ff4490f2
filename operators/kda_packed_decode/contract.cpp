#include "operators/kda_packed_decode/contract.hpp"

#include <string>

#include "operators/kda_common/contract_stages.hpp"

namespace kda {

StepArgs packed_decode_args(StepArgs args) {
  args.d_cache = args.k_cache = args.g_cache = nullptr;
  args.write_pos = args.force_flush = nullptr;
  return args;
}

Dims validate_packed_decode(const StepArgs& args, Backend backend) {
  const DLTensor* const required[] = {
      args.mixed_qkv, args.a, args.b, args.A_log, args.dt_bias, args.initial_state, args.out, args.ssm_state_indices};
  for (std::size_t i = 0; i < std::size(required); ++i)
    detail::check_well_formed(required[i], std::string(kPackedDecodeTensors[i]).c_str(), true);
  const StepArgs plain = packed_decode_args(args);
  detail::ValidationState st;
  st.flatten_views = false;
  detail::check_packed(plain, st);
  detail::check_extensions(plain, st, backend);
  return Dims{st.batch, static_cast<int64_t>(st.H), st.HV, st.K, st.V, 0, args.initial_state->shape[0]};
}

}  // namespace kda
