// Shared state of validate()'s stages (validate.cpp runs them in contract.md's order):
// the wrapper's preparation and the packed checks (validate_packed.cpp), the ReplaySSM
// checks (validate_replayssm.cpp) and the harness extensions (validate_extensions.cpp).
#pragma once
#include <string>

#include "contract/backend_kind.hpp"
#include "contract/checked_int.hpp"
#include "contract/contract_error.hpp"
#include "contract/step_args.hpp"

namespace kda::detail {

// What the stages learn as they go. Sizes that may exceed int64 (products, the flat view
// of `a`) are kept wide so that messages print them exactly.
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

[[noreturn]] inline void fail(const char* id, const std::string& message) { throw ContractError(id, message); }

// Harness misuse, not a contract error: a missing required argument, or a DLTensor that no
// framework can produce. Throws std::invalid_argument.
void check_well_formed(const DLTensor* t, const char* name, bool required);
// P0, W1-W3 (when st.flatten_views), V1-V22.
void check_packed(const StepArgs& args, ValidationState& st);
// R1-R10.
void check_replayssm(const StepArgs& args, ValidationState& st);
// X-STRIDES' and X-EXTENTS' questions about one tensor (every operator's extensions ask them):
// a negative stride; an element count or storage byte extent beyond int64 (strides must be
// non-negative).
bool has_negative_stride(const DLTensor& t);
bool extent_fits(const DLTensor& t);
// X-VIEW-A, X-DTYPE-FLOAT, X-DTYPE-INDEX, X-RING-SLOTS, X-STRIDES, X-EXTENTS, X-BACKEND-*;
// the ring checks only where the call has rings.
void check_extensions(const StepArgs& args, const ValidationState& st, Backend backend);

}  // namespace kda::detail
