// The stages of the two KDA contracts and what they learn as they go. kda_replayssm's
// validate() runs P0, W1-W3, V1-V22 (contract_v_checks.cpp), R1-R10
// (../kda_replayssm/contract_ring_checks.cpp), then the harness extensions
// (contract_extensions.cpp); kda_packed_decode's validate_packed_decode() runs V1-V22 on `a` and
// `dt_bias` as given, then the extensions that apply to a call without rings.
#pragma once
#include "contract/backend_kind.hpp"
#include "contract/checked_int.hpp"
#include "contract/step_args.hpp"
#include "contract/validate_internal.hpp"

namespace kda::detail {

// Sizes that may exceed int64 (products, the flat view of `a`) are kept wide so that messages
// print them exactly.
struct ValidationState {
  // ReplaySSM's wrapper flattens `a` and `dt_bias` (W1-W3) before V1-V22; the plain packed
  // decode passes them to V1-V22 as given.
  bool flatten_views = true;
  int64_t batch = 0;            // P0: mixed_qkv.size(0)
  bool a_view_ok = true;        // W3: a.view(batch, -1) possible (else X-VIEW-A after R10)
  i128 flat_a_cols = 0;         // flat a.shape[1] (when a_view_ok)
  i128 flat_a_last_stride = 1;  // flat a.stride(-1)
  i128 flat_dt_numel = 0;       // flat dt_bias.shape[0]
  i128 flat_dt_stride = 1;      // flat dt_bias.stride(0)
  int64_t a_ndim = 2, dt_ndim = 1;  // what V3 and V5 see
  int64_t a_rows = 0;               // what V10 and V15 see as a.shape[0]
  int64_t HV = 0, V = 0, K = 0;  // initial_state.shape[1:]
  i128 H = 0;                    // inferred from mixed_qkv (V22)
  int64_t L = 0;                 // d_cache.size(2)
};

// P0, W1-W3 (when st.flatten_views), V1-V22.
void check_packed(const StepArgs& args, ValidationState& st);
// R1-R10.
void check_replayssm(const StepArgs& args, ValidationState& st);
// X-VIEW-A, X-DTYPE-FLOAT, X-DTYPE-INDEX, X-RING-SLOTS, X-STRIDES, X-EXTENTS, X-BACKEND-*;
// the ring checks only where the call has rings.
void check_extensions(const StepArgs& args, const ValidationState& st, Backend backend);

}  // namespace kda::detail
