// Internal to operators/gdn_replayssm/: the per-(row, value head) algorithm of the GDN
// ReplaySSM step (gdn-replayssm.md, "What it computes"), in Scalar arithmetic, shared by
// gdn_replayssm_step and the tests that hold it against KDA's (reference/replay_head.hpp).
// It differs from KDA's only where the spec says the kernel does: one gate per record and per
// token; the replay decay folded onto d_j BEFORE the dot operands are rounded (KDA folds it
// onto k_j); the current decay applied AFTER the sums over K (KDA decays q and k per channel).
#pragma once
#include <cmath>
#include <cstdint>

#include "reference/layer_inputs.hpp"

namespace kda::gdn {

using reference::HeadToken;
using reference::Matrix;
using reference::Vector;

// The state before the current token: with prefix_j = g_0 + ... + g_j and total = prefix_{n-1},
//   S = S0 exp(total) + sum_{j<n} (exp(total - prefix_j) d_j) k_j^T.
// D [>=n, V], Kr [>=n, K], G [>=n] hold the records; only their first n are read.
// round_operand(Matrix&) is applied to the decayed deltas and to the keys before their
// product (the kernel rounds both dot operands to out's dtype; identity for no rounding).
template <class Scalar, class RoundOperand>
Matrix<Scalar> rebuild_state(const Matrix<Scalar>& S0, const Matrix<Scalar>& D, const Matrix<Scalar>& Kr,
                             const Vector<Scalar>& G, int64_t n, RoundOperand&& round_operand) {
  if (n == 0) return S0;
  Vector<Scalar> prefix = G.head(n);
  for (int64_t j = 1; j < n; ++j) prefix(j) += prefix(j - 1);
  const Scalar total = prefix(n - 1);
  Matrix<Scalar> decayed_d = D.topRows(n);
  for (int64_t j = 0; j < n; ++j) decayed_d.row(j) *= std::exp(total - prefix(j));
  Matrix<Scalar> keys = Kr.topRows(n);
  round_operand(decayed_d);
  round_operand(keys);
  Matrix<Scalar> S = S0 * std::exp(total);
  S.noalias() += decayed_d.transpose() * keys;
  return S;
}

// The current token on the rebuilt state S, its gate g (a scalar; t.g is not read):
// the sums S k and S q first, then the decay, d = beta (v - exp(g) (S k)),
// o = exp(g) (S q_scaled) + d (k . q_scaled). Leaves S decayed (S <- exp(g) S): the next
// state is S + d k^T.
template <class Scalar>
void replay_token(Matrix<Scalar>& S, const HeadToken<Scalar>& t, Scalar g, Vector<Scalar>& o, Vector<Scalar>& d) {
  const Scalar decay = std::exp(g);
  const Vector<Scalar> Sk = S * t.k, Sq = S * t.q_scaled;  // evaluated before the decay multiplies them
  d = t.beta * (t.v - decay * Sk);
  o = decay * Sq + d * t.k.dot(t.q_scaled);
  S *= decay;
}

}  // namespace kda::gdn
