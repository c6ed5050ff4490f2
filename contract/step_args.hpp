// The arguments of one decode step of any operator the harness judges, by the names of the
// specs (contract.md, packed-decode.md, gdn-replayssm.md), as borrowed DLTensor views. An
// operator takes a subset (its description's tensors); the shapes in the comments are
// kda_replayssm's. Tensors the step writes are non-const.
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>

namespace kda {

struct StepArgs {
  const DLTensor* mixed_qkv = nullptr;  // [B, 2*H*K + HV*V]
  const DLTensor* a = nullptr;          // [B, HV*K] or [B, HV, K]
  const DLTensor* b = nullptr;          // [B, HV]
  const DLTensor* A_log = nullptr;      // [HV]
  const DLTensor* dt_bias = nullptr;    // [HV*K] or [HV, K]
  double scale = 1.0;
  DLTensor* initial_state = nullptr;  // [slots, HV, V, K], in/out
  DLTensor* d_cache = nullptr;        // [slots, HV, L, V], in/out
  DLTensor* k_cache = nullptr;        // [slots, H, L, K], in/out
  DLTensor* g_cache = nullptr;        // [slots, HV, L, K] float32, in/out
  DLTensor* out = nullptr;            // [B, 1, HV, V]
  const DLTensor* ssm_state_indices = nullptr;  // [B], negative = padding row
  const DLTensor* write_pos = nullptr;          // [B] int32
  const DLTensor* force_flush = nullptr;        // [B] int32, or null (absent)
  bool use_qk_l2norm_in_kernel = false;
  std::optional<double> lower_bound;  // absent: softplus gate
  // gdn_replayssm only (its Triton wrapper's ring variants and K tiling):
  const DLTensor* cache_base = nullptr;  // [B] int32, or null; read under circular_replay
  int64_t nk = 2;                        // K tiles: BK = next_pow2(K), BKT = BK / nk
  bool circular_replay = false, prefix_gate_cache = false, predecayed_k_cache = false;
  // flash-linear-attention's recurrent decode (fla_recurrent_kda): one tensor per quantity,
  // T tokens per sequence, the pool initial_state [N, HV, K, V] (or [N, HV, V, K] with
  // state_v_first) updated in place at ssm_state_indices [B] or [B, T].
  const DLTensor* q = nullptr;                    // [B, T, H, K]
  const DLTensor* k = nullptr;                    // [B, T, H, K]
  const DLTensor* v = nullptr;                    // [B, T, HV, V]
  const DLTensor* g = nullptr;                    // [B, T, HV, K] float32
  const DLTensor* beta = nullptr;                 // [B, T, HV] or [B, T, HV, V]
  const DLTensor* num_accepted_tokens = nullptr;  // [B] int32, or null
  bool use_gate_in_kernel = false, use_beta_sigmoid_in_kernel = false, allow_neg_eigval = false,
       state_v_first = false;
};

// What validate() infers (contract.md: B, H, HV, K, V, L; slots = initial_state.shape[0]; T,
// the tokens per sequence of an operator that takes several, else 0).
struct Dims {
  int64_t B = 0, H = 0, HV = 0, K = 0, V = 0, L = 0, slots = 0, T = 0;
  bool operator==(const Dims&) const = default;
};

}  // namespace kda
