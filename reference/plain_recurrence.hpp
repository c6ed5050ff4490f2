// The plain KDA recurrence: the ground truth (semantics.md, "One token of the plain
// recurrence"). Each (slot, value head) owns a state matrix S [V, K]; one token decays S
// by exp(g) per K column, applies the corrected delta d = beta (v - S k), S += d k^T, and
// outputs o = S (q * scale). Scalar = double is the ground truth; Scalar = float is what a
// kernel computes without any storage rounding.
#pragma once
#include <cstdint>
#include <vector>

#include "reference/layer_inputs.hpp"

namespace kda::reference {

template <class Scalar>
class PlainState {
 public:
  PlainState() = default;
  // slots * HV zero matrices of [V, K].
  explicit PlainState(const Dims& dims);
  // Reads initial_state [slots, HV, V, K] (any dtype, any strides) as the state.
  static PlainState from_tensor(const DLTensor& initial_state, const Dims& dims);

  Matrix<Scalar>& at(int64_t slot, int64_t hv) { return S_[slot * dims_.HV + hv]; }
  const Matrix<Scalar>& at(int64_t slot, int64_t hv) const { return S_[slot * dims_.HV + hv]; }
  const Dims& dims() const { return dims_; }

 private:
  Dims dims_;
  std::vector<Matrix<Scalar>> S_;  // index slot * HV + hv
};

// One token for a batch: updates the states of the rows' slots in place and returns the
// outputs [B, HV*V] (row-major: out[row, hv*V + i]). Padding rows give zero outputs and
// leave every state untouched. Rows must name distinct slots.
template <class Scalar>
Matrix<Scalar> plain_step(PlainState<Scalar>& state, const LayerParams<Scalar>& params,
                          const TokenInputs<Scalar>& token);

// The token update for one head, shared by plain_step (and used by tests): S is the state
// before the token, replaced by the state after it; returns o.
template <class Scalar>
Vector<Scalar> plain_head_update(Matrix<Scalar>& S, const HeadToken<Scalar>& t);
// The same with o written into `o` (its storage reused, and the update's own vectors this
// thread's: no allocation per head).
template <class Scalar>
void plain_head_update(Matrix<Scalar>& S, const HeadToken<Scalar>& t, Vector<Scalar>& o);

// A sequence of tokens: outputs of every token, in order.
template <class Scalar>
std::vector<Matrix<Scalar>> plain_sequence(PlainState<Scalar>& state, const LayerParams<Scalar>& params,
                                           const std::vector<TokenInputs<Scalar>>& tokens);

}  // namespace kda::reference
