// The valid gdn_replayssm calls the contract suites start from: CallConfig's sizes, dtypes,
// device and layout knobs (engine/description/call_config.hpp) made into GDN's shapes.
#pragma once
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/replayssm_family/valid_call.hpp"

namespace kda::engine {

// A call that validate_gdn_replayssm() accepts with c.dims(), for StepArgs' defaults of the
// scalars (nk = 2, no ring variant) and K > 16 (G32: next_power_of_2(K) / 2 >= 16). `a`
// [B, HV], `dt_bias` [HV] and `g_cache` [slots, HV, L] float32; the rest as kda_replayssm's
// make_valid_spec, except that the indices are int32 whatever c.index says (G25), and only
// initial_state takes envelope_pad (the rings must be contiguous: G19). c.a_3d and c.dt_2d
// have no meaning here.
CallSpec gdn_valid_spec(const CallConfig& c);
// The same wrapper's valid calls on either path: is_kda true gives its KDA path's (a [B, HV, K],
// dt_bias [HV, K], g_cache [slots, HV, L, K], all compact), the scalars again at StepArgs'
// defaults (no ring variant).
CallSpec triton_valid_spec(const CallConfig& c, bool is_kda);

}  // namespace kda::engine
