// The contract of gdn_replayssm, SGLang's GDN ReplaySSM Triton wrapper
// (spec/gdn-replayssm.md), and of the same wrapper's KDA path (kda_triton_replayssm): its own checks G1-G32 in the wrapper's order, then the harness
// extensions that carry over from contract.md plus this operator's own. Metadata only: it
// never reads or writes tensor data. The arguments are StepArgs with `a` [B, HV], `dt_bias`
// [HV] and `g_cache` [slots, HV, L]; cache_base, nk and the ring-variant flags are read.
//
// The runtime-value extensions (slot < slots, write_pos in [0, L-1], distinct live slots, and
// under circular_replay cache_base in [0, L-1]) are check_runtime_values()'s
// (contract/validate.hpp): it reads only the index tensors and Dims.
#pragma once
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda {

// Ids of the checks. The documented checks are "G1".."G32", except where the text is the
// KDA catalog's own (G2 raises "V2", G6 "V8", G11 "V20", G13 "V22", G16 "R4"); G30 cannot
// fire (BK = next_power_of_2(K) >= K). The harness extensions of this operator:
namespace gdn_error_id {
inline constexpr const char* kRingRank = "X-GDN-RING-RANK";        // d_cache under 3 dims (G16 reads shape[2])
inline constexpr const char* kEmptyHeads = "X-GDN-EMPTY-HEADS";    // K, V or HV is 0
inline constexpr const char* kNk = "X-GDN-NK";                     // nk = 0 (G31 divides by it)
inline constexpr const char* kGateStrides = "X-GDN-GATE-STRIDES";  // a.stride(-1) or dt_bias.stride(0) != 1
inline constexpr const char* kDevice = "X-GDN-DEVICE";             // tensors on more than one device
}  // namespace gdn_error_id

// Returns the inferred dims, or throws ContractError with the first failing check's id and
// exact message; std::invalid_argument for harness misuse (a required tensor null, or
// metadata no framework can produce), as validate() does.
Dims validate_gdn_replayssm(const StepArgs& args, Backend backend = Backend::Any);

// The same wrapper's checks on either of its paths: is_kda false is validate_gdn_replayssm;
// true is its KDA path (kda_triton_replayssm: `a` [B, HV, K] and `dt_bias` [HV, K] contiguous,
// K17-K19 in G17-G18's place, `g_cache` [slots, HV, L, K], and the pre-decayed block P2-P9,
// spec/circular-replay.md), with the same extensions.
Dims validate_triton_replayssm(const StepArgs& args, bool is_kda, Backend backend = Backend::Any);

// The operator whose contract the wrapper's path is, as messages name it ({operator} of
// X-GDN-DEVICE).
inline const char* triton_operator_name(bool is_kda) { return is_kda ? "kda_triton_replayssm" : "gdn_replayssm"; }

}  // namespace kda
