// Internal to the reference: the per-(row, value head) algorithm of a ReplaySSM step, shared by
// kda_replayssm's replayssm_step (operators/kda_replayssm/reference_step.cpp: tensors, kernel
// rounding or none) and ReplayModel (own rings, no rounding), so the two differ only in where
// records live and how they are rounded.
#pragma once
#include <cstdint>

#include "reference/exp.hpp"
#include "reference/layer_inputs.hpp"

namespace kda::reference {

// The state before the current token (semantics.md): with prefix_j = g_0 + ... + g_j and
// total = prefix_{n-1},
//   S = S0 * diag(exp(total)) + sum_{j<n} d_j (k_j * exp(total - prefix_j))^T.
// D [>=n, V], Kr [>=n, K], G [>=n, K] hold the records; only their first n rows are read.
// round_operand(Matrix&) is applied to the d_j's and to the decayed keys before their
// product (the kernel rounds both to out's dtype; identity for no rounding).
// rebuild_state's working matrices, which a caller rebuilding many heads keeps (no
// allocation per head).
template <class Scalar>
struct RebuildWork {
  Matrix<Scalar> prefix, W, Dn;
  Vector<Scalar> total_decay;
};

// The same into S (its storage reused).
template <class Scalar, class RoundOperand>
void rebuild_state(const Matrix<Scalar>& S0, const Matrix<Scalar>& D, const Matrix<Scalar>& Kr, const Matrix<Scalar>& G,
                   int64_t n, RoundOperand&& round_operand, RebuildWork<Scalar>& w, Matrix<Scalar>& S) {
  S = S0;
  if (n == 0) return;
  w.prefix = G.topRows(n);
  for (int64_t j = 1; j < n; ++j) w.prefix.row(j) += w.prefix.row(j - 1);
  const auto total = w.prefix.row(n - 1);
  w.W = (Kr.topRows(n).array() * exp_of((-(w.prefix.rowwise() - total)).array())).matrix();
  w.Dn = D.topRows(n);
  round_operand(w.Dn);
  round_operand(w.W);
  w.total_decay = exp_of(total.array()).transpose();  // K exponentials, not V*K
  S.array().rowwise() *= w.total_decay.transpose().array();
  S.noalias() += w.Dn.transpose() * w.W;
}

template <class Scalar, class RoundOperand>
Matrix<Scalar> rebuild_state(const Matrix<Scalar>& S0, const Matrix<Scalar>& D, const Matrix<Scalar>& Kr,
                             const Matrix<Scalar>& G, int64_t n, RoundOperand&& round_operand) {
  RebuildWork<Scalar> w;
  Matrix<Scalar> S;
  rebuild_state(S0, D, Kr, G, n, round_operand, w, S);
  return S;
}

// The current token on the rebuilt state: S <- S * diag(exp(g)) (the decayed state),
// d = beta (v - S k), o = S q_scaled + d (k . q_scaled). The next state is S + d k^T.
template <class Scalar>
void replay_token(Matrix<Scalar>& S, const HeadToken<Scalar>& t, Vector<Scalar>& o, Vector<Scalar>& d) {
  const Vector<Scalar> decay = exp_of(t.g.array());
  S.array().rowwise() *= decay.transpose().array();
  d = t.beta * (t.v - S * t.k);
  o = S * t.q_scaled + d * t.k.dot(t.q_scaled);
}

}  // namespace kda::reference
