// The recurrent decode family's call as the plain recurrence of reference/ reads it: the layer's
// parameters and each token's inputs packed as prepare_head() takes them ([q | k | v] as
// mixed_qkv, g as the gate input `a`, beta as `b`; a gate per value head, g [B, T, HV] with
// dt_bias [HV], repeated over the K channels: Gated DeltaNet is KDA with the gate broadcast),
// one head's quantities for a token, and the pool's states as S [V, K] whatever its layout.
// The reference steps, the oracles and the cross-operator property tests read the call
// through these.
#pragma once
#include <cstdint>
#include <vector>

#include "contract/step_args.hpp"
#include "operators/fla_recurrent_common/contract.hpp"
#include "reference/rounding.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/matrix.hpp"

namespace kda::reference {

template <class Scalar>
struct FlaTokens {
  LayerParams<Scalar> params;               // beta kept in float32: fla stores nothing of it
  std::vector<TokenInputs<Scalar>> tokens;  // [T], each of B rows
  bool gate_in_kernel = false, beta_sigmoid = false, neg_eigval = false;
};

// Every tensor contiguous and the call valid (the contract checked first).
template <class Scalar>
FlaTokens<Scalar> load_fla_tokens(const StepArgs& args, const Dims& dims);

// q scaled and k (L2-normalized when asked), v, the log-decay g (fla's in-kernel gate, or g
// as given) and beta (its sigmoid in the kernel, doubled with allow_neg_eigval, or as given) of
// (row, token t, value head hv).
template <class Scalar>
void fla_head(const FlaTokens<Scalar>& x, const Dims& dims, int64_t row, int64_t t, int64_t hv, HeadToken<Scalar>& h);

// The state of (slot, hv) as S [V, K] (a K-first pool [N, HV, K, V] read transposed), and its
// store, rounded to the pool's dtype.
template <class Scalar>
void read_fla_state(const DLTensor& pool, const Dims& dims, bool v_first, int64_t slot, int64_t hv, Matrix<Scalar>& S);
template <class Scalar>
void write_fla_state(DLTensor& pool, const Dims& dims, bool v_first, int64_t slot, int64_t hv, const Matrix<Scalar>& S);

// The family's CPU reference step (docs/fla-recurrent-decode.md): validates (the family's
// checks for the gate's width on the CPU, then the runtime values) and performs the step. A
// live row starts from the state at slot idx[b, n - 1] (n = num_accepted_tokens[b], or 1 when
// absent), runs its T tokens and stores the state after token t at idx[b, t] (1-D indices:
// idx[b], T = 1); out[b, t, hv] = S (q * scale). A padding row (first index negative) reads and
// writes no state; its out holds zeros. Rounding::Kernel: float32 arithmetic, the stores of out
// and the pool the only rounding points; Rounding::Off: float64. Per-channel beta
// [B, T, HV, V] is not modelled (std::invalid_argument). Throws kda::ContractError before
// writing anything.
Dims fla_recurrent_step(const StepArgs& args, Rounding rounding, FlaGate gate);

}  // namespace kda::reference
