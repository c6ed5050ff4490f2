// THE TOLERANCE MODEL: how far a rollout with the kernel's rounding points may lie from the
// plain float64 recurrence, per block (an output head o[row, hv] or a checkpoint
// S[slot, hv]), as the normwise relative error of compare.hpp (with its floors).
//
// Notation: u_s, u_r, u_o = unit roundoff of the state, ring and out dtypes (2^-24 float32,
// 2^-8 bfloat16, 2^-11 float16); u_p = roundoff of the rebuild's product operands (u_o, or
// TF32's 2^-11 when a float32-out kernel runs them on tensor cores); u = 2^-24 (float32
// arithmetic); T = tokens of the rollout; G = the gate mass: the largest sum of |g| over the
// records that one rebuild combines (the rollout measures it, see below).
//
// Facts used. (a) Rounding a vector to nearest gives a normwise relative error <= the unit
// roundoff (|fl(x_i) - x_i| <= u |x_i| for every element), outside the subnormal range that
// compare's sqrt(n) * smallest-normal floor covers. (b) The state update S -> S diag(exp(g))
// (I - beta k k^T) + beta v k^T has g <= 0, beta in (0, 1) and (normalized keys, or the
// generator's keys of norm <= 1) beta ||k||^2 < 2, so both factors have spectral norm <= 1:
// an error already in the state never grows; it decays with the state. (c) The state is a
// sum of rank-one terms d_j k_j^T (plus the decayed checkpoint) whose Frobenius inner
// products are small for random d, k of dimension >= 16, so ||sum E_j|| ~ (sum ||E_j||^2)^1/2
// and ||S||^2 ~ sum ||T_j||^2: independent per-term relative errors e_j give a relative
// error <= max e_j for the sum. (d) Independent roundings of the same quantity at successive
// times add in quadrature (sqrt of their number), the first-order probabilistic model of
// Higham and Mary (SIAM J. Sci. Comput. 41, 2019); their dot-product bound lambda sqrt(n) u
// holds with probability >= 1 - 2 exp(-lambda^2 / 2): lambda = 7.5 leaves < 1e-12 per product.
//
// Checkpoint after a flush, relative to ||S||_F:
//   sqrt(T) u_s                checkpoint stores, one per flush, at most T, in quadrature (d)
// + 2 (u_r + u_p)              each record's d_j and decayed key: ring store, then operand
//                              rounding before the product; per term <= 2 (u_r + u_p) (a),
//                              and so for their sum (c); propagated without growth (b)
// + lambda u (sqrt(K) + sqrt(L)) float32 products: S k (length K), the rebuild (<= L terms)
// + 2 u G                      exp(total - prefix_j) from float32 prefix sums: the difference
//                              of two sums of magnitude <= G is off by <= 2 u G, which is the
//                              relative error of that exponential
// Output head, relative to max(||o||, ||S||_F ||q_s|| / sqrt(K)):
//   u_o                        the store (a)
// + tau * (checkpoint model)   the state's error seen through q: for a random q,
//                              ||dS q|| / ||S||_F ||q|| ~ chi_V / sqrt(V K) concentrates at
//                              1 / sqrt(K) with a tail (V >= 16 degrees of freedom) below
//                              1.5x at probability 1 - 1e-4 per head; tau = 2 covers the tail
// + lambda u sqrt(K)            the product S q
// Each bound is the model times 1.1 (a 10% safety factor on the model, nothing else).
//
// The gate mass G is data: the rollout driver tracks, per (slot, hv), the largest sum of
// max_c |g_j[c]| over the records present at a rebuild (reset at each flush), and the
// bound used at a token is base + per_gate_mass * G.
#include "reference/tolerance.hpp"

#include <algorithm>
#include <cmath>

namespace kda::reference {
namespace {
constexpr double kU32 = 0x1p-24;
constexpr double kLambda = 7.5;  // probabilistic dot-product bound, fact (d)
constexpr double kTau = 2.0;     // state-to-output transfer
constexpr double kSafety = 1.1;
}  // namespace

double unit_roundoff(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return 0x1p-24;
    case ScalarType::BFloat16: return 0x1p-8;
    case ScalarType::Float16: return 0x1p-11;
    default: return 0;
  }
}

double smallest_normal(ScalarType t) { return t == ScalarType::Float16 ? 0x1p-14 : 0x1p-126; }

double output_floor(double state_norm, double q_scaled_norm, int64_t K, int64_t V, ScalarType out_dtype) {
  return std::max(state_norm * q_scaled_norm / std::sqrt(static_cast<double>(K)),
                  std::sqrt(static_cast<double>(V)) * smallest_normal(out_dtype));
}

double state_floor(int64_t V, int64_t K, ScalarType state_dtype) {
  return std::sqrt(static_cast<double>(V * K)) * smallest_normal(state_dtype);
}

RolloutBounds rollout_bounds(const CaseConfig& c, bool tf32_products) {
  const double us = unit_roundoff(c.state_dtype), ur = unit_roundoff(c.ring_dtype), uo = unit_roundoff(c.out_dtype);
  const double up = tf32_products && c.out_dtype == ScalarType::Float32 ? kTf32UnitRoundoff : uo;
  const double sqrtK = std::sqrt(static_cast<double>(c.K)), sqrtL = std::sqrt(static_cast<double>(c.L));
  const double state = std::sqrt(static_cast<double>(c.steps)) * us + 2 * (ur + up) + kLambda * kU32 * (sqrtK + sqrtL);
  const double output = uo + kTau * state + kLambda * kU32 * sqrtK;
  RolloutBounds b;
  b.output = kSafety * output;
  b.state = kSafety * state;
  b.output_per_gate_mass = kSafety * kTau * 2 * kU32;
  b.state_per_gate_mass = kSafety * 2 * kU32;
  return b;
}

RolloutBounds kernel_vs_reference_bounds(const CaseConfig& c, bool tf32_products) {
  RolloutBounds b = rollout_bounds(c, tf32_products);
  b.output *= 2;
  b.state *= 2;
  b.output_per_gate_mass *= 2;
  b.state_per_gate_mass *= 2;
  return b;
}

RolloutBounds float32_plain_bounds(int64_t K, int64_t V, int64_t steps) {
  // The models above with no storage and no records: the state carried in float32 rounds
  // once per token (sqrt(T) u, in quadrature) plus the products S k and S q. No prefix sums
  // of gates, so no gate-mass term: one token's exp(g) is off by ~u |g|, on a column that it
  // shrinks by exp(g), so that error is below u / e of the state.
  const double sqrtK = std::sqrt(static_cast<double>(K));
  const double state = std::sqrt(static_cast<double>(steps)) * kU32 + kLambda * kU32 * sqrtK;
  RolloutBounds b;
  b.state = kSafety * state;
  b.output = kSafety * (kU32 + kTau * state + kLambda * kU32 * sqrtK);
  return b;
}

}  // namespace kda::reference
