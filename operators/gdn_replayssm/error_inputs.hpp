// The error inputs of gdn_replayssm (engine/description/error_inputs.hpp's rules): one per check of
// spec/gdn-replayssm.md that a call's tensors can break, in the wrapper's order, then one per
// metadata extension of the harness. "G12-K0" (K = 0 with hand-made state strides
// [s, 0, 0, 1], where G12 divides by K; PyTorch's own strides of such a state, which null
// strides mean, fail G10) raises X-GDN-EMPTY-HEADS and "G16-short" (a d_cache under 3 dims)
// X-GDN-RING-RANK, each in the place where the wrapper meets the framework error
// (ZeroDivisionError, IndexError): the kernel-contract suite asks a backend for any refusal
// there, not the harness's text.
//
// Not here, because a CallSpec carries tensors only, not the scalars that decide them: G9
// and G28 (circular_replay), G29 (predecayed_k_cache), G31 and X-GDN-NK (nk);
// operators/gdn_replayssm/contract_test.cpp raises each on StepArgs. G30 cannot fire. The
// inputs assume StepArgs' defaults for those scalars (nk = 2: G32's expected message says so).
// A mutation that changes a size (K, V, HV, slots) records it in the target's dims, so that
// the inputs applied after it render their messages from the sizes the call now has.
#pragma once
#include <vector>

#include "engine/description/error_inputs.hpp"

namespace kda::engine {

const std::vector<ErrorInput>& gdn_replayssm_error_inputs();
// The same wrapper's inputs on either path: is_kda false is the list above; true is its KDA
// path's (kda_triton_replayssm), K17-K19 in G17-G18's place, G22 wanting [slots, HV, L, K], the
// gates resized with K, and no X-GDN-GATE-STRIDES (K19 wants both gates contiguous). The
// pre-decayed block P2-P9 depends on scalars and dtypes a mutation of one tensor cannot
// isolate: kda_triton_replayssm's contract_test raises each on StepArgs.
std::vector<ErrorInput> triton_replayssm_error_inputs(bool is_kda);

}  // namespace kda::engine
