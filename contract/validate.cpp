// validate(): the whole contract in contract.md's order. The stages live in
// validate_packed.cpp, validate_replayssm.cpp and validate_extensions.cpp.
#include "contract/validate.hpp"

#include <stdexcept>
#include <string>

#include "contract/validate_internal.hpp"

namespace kda {

// Harness misuse, not a contract error: a missing required argument, or a DLTensor that no
// framework can produce (negative rank or size, no shape array).
void detail::check_well_formed(const DLTensor* t, const char* name, bool required) {
  if (!t) {
    if (required) throw std::invalid_argument(std::string("validate: required argument `") + name + "` is null");
    return;
  }
  if (t->ndim < 0 || (t->ndim > 0 && t->shape == nullptr))
    throw std::invalid_argument(std::string("validate: `") + name + "` has a negative ndim or no shape array");
  for (int32_t d = 0; d < t->ndim; ++d)
    if (t->shape[d] < 0) throw std::invalid_argument(std::string("validate: `") + name + "` has a negative size");
}

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
