// THE TOLERANCE MODEL: how far a rollout with the kernel's rounding points may lie from the
// plain float64 recurrence, per block (an output head o[row, hv], or a checkpoint S[slot, hv]
// after a flush), as the normwise relative error of compare.hpp with its floors.
//
// Notation. u_s, u_r, u_o: unit roundoffs of the state, ring and out dtypes (2^-24 float32,
// 2^-8 bfloat16, 2^-11 float16); u_p: roundoff of the rebuild's product operands (u_o, or
// 2^-10 for the Triton profile's float32-out dots, whose TF32 operands the tensor core
// truncates: one-sided errors, so the records' product errors add linearly, R_lin below);
// u = 2^-24, float32 arithmetic. The full derivation, the Triton key rounding (key_extra) and
// the worst case (directed rounding: units doubled, every sum linear, rho = 1) are in
// docs/error-analysis.md.
//
// Facts. (a) Rounding a vector to nearest moves it by at most u times its norm (each element
// by at most u times itself), plus u * smallest_normal per element in the subnormal range.
// (b) A token maps S -> S diag(exp(g)) (I - beta k k^T) + beta v k^T with g <= 0, beta in
// (0, 1), beta ||k||^2 < 2 (normalized keys, or the generator's keys of norm <= 1.25 when the
// step does not normalize: operators/replayssm_family/case_tensors.cpp): both factors have spectral norm <= 1, so an error already in the state never grows; it decays with the
// columns it sits in. (c) Independent rounding errors add in quadrature: the first-order
// probabilistic model of Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019), whose
// dot-product bound lambda sqrt(n) u holds with probability >= 1 - 2 exp(-lambda^2 / 2);
// lambda = 7.5 leaves < 1e-12 per product. (d) An error matrix E with column error norms
// E[c], seen through q, has ||E q|| about ||E * q|| = sqrt(sum_c E[c]^2 q[c]^2) for error
// directions independent of q (a chi variable with V >= 16 degrees of freedom, below 1.5x
// its mean at probability 1 - 1e-4): tau = 2 covers that tail. (e) A store rounds x onto an
// error E that came before it (||E|| <= a; its own rounding delta, ||delta|| <= b = u ||x||,
// is independent of E): ||E + delta||^2 = ||E||^2 + ||delta||^2 + 2 <E, delta>. Quadrature
// drops the cross term, which only averaging over many elements makes small: |<E, delta>| <=
// lambda u ||x||_inf ||E|| (Hoeffding, the lambda of (c)) = rho a b with rho = lambda / sqrt(n),
// n = ||x||^2 / ||x||_inf^2 the effective number of elements, and <= a b always
// (Cauchy-Schwarz). So a (+)_x b = sqrt(a^2 + b^2 + 2 min(1, rho) a b): a block of one or two
// elements (K = 1, V <= 2) adds its store linearly (two same-signed errors reached 1.25x their
// quadrature there); a 128 x 128 checkpoint nearly in quadrature.
//
// THE RUNNING BUDGET (ErrorBudget, used by the rollout driver). The state a ReplaySSM step
// builds is a sum of parts: the decayed checkpoint S0 diag(exp(total)) and the records
// d_j (k_j * exp(total - prefix_j))^T, then the token's own d k^T. The budget follows, per
// (slot, hv) and per K column c (decay and cancellation act per column), the float64 norms
// of those parts and an error bound E[c] for the state's column c:
//   E_dec[c] = E_ckpt[c]                              the checkpoint's error, decayed (b)
//            + 2 (u_r + u_p) R[c],                    R[c] = sqrt(sum_j ||d_j||^2 w_j[c]^2):
//                                                     d_j and k_j rounded to the ring's dtype,
//                                                     then to the product operands' (a);
//                                                     independent records (c)
//            + sqrt(sum_j (t (sqrt(V) w_j[c] + ||d_j||))^2)
//                                                     the same stores in the subnormal range:
//                                                     t = u_r * smallest_normal(ring) + u_p *
//                                                     smallest_normal(operands) per element (a)
//            + sum_j e_j w_j[c]                       errors d_j inherited from the state it was
//                                                     computed from (one error behind them all:
//                                                     added linearly)
//            + (lambda u (sqrt(K) + sqrt(L)) + 2 u G[c]) (||S0 decayed[:, c]|| + R[c])
//                                                     float32 products S k (K terms) and the
//                                                     rebuild (< L terms) (c); exp(total -
//                                                     prefix_j) from float32 prefix sums of
//                                                     magnitude <= G[c] (the gate mass: the
//                                                     sum over present records of |g_j[c]|)
//                                                     is off by <= 2 u G[c] relatively
// where w_j = |k_j| * exp(decay since j). The token's d = beta (v - S_dec k) then carries
// e = beta ||E_dec|| ||k|| (+ the arithmetic rate times ||d||) of error into d k^T (the
// projection (I - beta k k^T) moves error between columns), so the state after the token
// has E[c] = E_dec[c] + e |k[c]|; an append keeps e with the new record.
// Bounds at this token, relative to compare's floors:
//   output o = S q_scaled: (tau ||E * q||) (+)_o (u_o ||o||) + lambda u ||S|| ||q||
//     (the column errors seen through q (d), then the store (a), (e); the product)
//   checkpoint written by a flush: ||E|| (+)_S (u_s ||S||) (its store (a), (e)); per column,
//     E[c] (+)_S[:,c] (u_s ||S[:, c]||) + sqrt(V) u_s smallest_normal(state) becomes the
//     next period's E_ckpt[c]: a gate that decays a float16 checkpoint below 2^-14 leaves it
//     a few significant bits (subnormal steps (a)), and the next outputs read it.
// (plus u * smallest_normal per element for subnormal stores). Each bound is 1.1 times the
// model (a 10% safety factor, nothing else). Where the parts of a column sum to much less
// than themselves (cancellation: a saturated beta erasing most of a large state, a gate
// that decays the large columns away), the same absolute errors are a larger relative
// error; the budget follows the actual magnitudes, so its bound widens exactly there.
//
// THE A-PRIORI BOUNDS (rollout_bounds().output / .state, for callers that compare single
// steps): the same model assuming no cancellation (every part no larger than the state),
// the stores of at most T flushes added one after another by (e), and tau ||E|| ||q|| / sqrt(K)
// for the error seen through a random q:
//   state  = s_T + 2 (u_r + u_p) + lambda u (sqrt(K) + sqrt(L))   (+ 2 u G)
//     s_0 = 0, s_{t+1} = s_t (+) u_s with rho = min(1, lambda / sqrt(V K)): the state's mass
//     taken as spread over its V K elements (the bound has no state to measure n on). A
//     large block keeps near sqrt(T) u_s; a block of a few elements (V K < lambda^2 = 56)
//     adds its stores linearly, T u_s: a 1 x 1 checkpoint rounded on every token can drift
//     the same way each time (the kernel fuzzer's K = V = 1 finding, 1.07x over sqrt(T) u_s).
//   output = u_o + tau * state + lambda u sqrt(K)          (each times 1.1; G, the gate
//   mass, is the caller's measurement: state_at(G), output_at(G))
#include "reference/tolerance.hpp"

#include <algorithm>
#include <cmath>

namespace kda::reference {
namespace {
constexpr double kU32 = 0x1p-24;
constexpr double kLambda = 7.5;  // fact (c)
constexpr double kTau = 2.0;     // fact (d)
constexpr double kSafety = 1.1;

// Float32 sums of n terms: lambda sqrt(n) u in quadrature (c); n u in the worst case.
double sum_rate(const RoundingRates& r, int64_t n) {
  const double terms = static_cast<double>(std::max<int64_t>(1, n));
  return r.worst_case ? terms * r.arithmetic : kLambda * r.arithmetic * std::sqrt(terms);
}

// Besides its sums, a token takes a few float32 operations per element (the decay and its
// exp, v - S k, beta times it, d k^T and its addition): in the worst case each adds its unit
// (the probabilistic rate, lambda u per sum, already exceeds them).
constexpr int64_t kElementwiseOps = 6;
// The gate g = -A softplus(x) (or its bounded form) takes about five float32 operations, exp(g)
// one more: in the worst case exp(g) is off by 6 units times |g| relatively, beside the 2 u G
// of the prefix sums.
constexpr double kGateOps = 6;

double arithmetic_rate(const RoundingRates& r) {
  const double ops = r.worst_case ? kElementwiseOps * r.arithmetic : 0.0;
  return sum_rate(r, r.K) + sum_rate(r, r.L) + ops;
}

// Relative error of the decays per unit of gate mass.
double gate_rate(const RoundingRates& r) { return (2 + (r.worst_case ? kGateOps : 0.0)) * r.arithmetic; }

// Fact (e): a (+)_x b, the norm of an error ||E|| <= a after a store rounds x onto it
// (||delta|| <= b = u ||x||): the cross term 2 <E, delta> is at most 2 (lambda / sqrt(n)) a b,
// n = ||x||^2 / ||x||_inf^2 (Hoeffding), and never more than 2 a b (Cauchy-Schwarz).
// In the worst case the store's rounding points the way of E: rho = 1. `peak` = ||x||_inf,
// `norm` = ||x|| (neither read in the worst case: peak_of gives 0 there).
double add_store_error(double a, double b, double peak, double norm, bool worst_case) {
  const double rho = norm > 0 && !worst_case ? std::min(1.0, kLambda * peak / norm) : 1.0;
  return std::sqrt(a * a + b * b + 2 * rho * a * b);
}
template <class Derived>
double peak_of(const Eigen::MatrixBase<Derived>& x, bool worst_case) {
  return worst_case ? 0.0 : x.cwiseAbs().maxCoeff();
}

// s_T of the a-priori bounds: T stores of relative size `rate` on a block of n elements,
// each added to the error before it by fact (e).
double stores_in_sequence(int64_t stores, double rate, double n, bool worst_case) {
  const double rho = worst_case ? 1.0 : std::min(1.0, kLambda / std::sqrt(n));
  double a = 0;
  for (int64_t t = 0; t < stores; ++t) a = std::sqrt(a * a + rate * rate + 2 * rho * a * rate);
  return a;
}
}  // namespace

double unit_roundoff(ScalarType t) { return unit_roundoff_of(t); }

double smallest_normal(ScalarType t) { return smallest_normal_of(t); }

double output_floor(double state_norm, double q_scaled_norm, int64_t K, int64_t V, ScalarType out_dtype) {
  return std::max(state_norm * q_scaled_norm / std::sqrt(static_cast<double>(K)),
                  std::sqrt(static_cast<double>(V)) * smallest_normal(out_dtype));
}

double state_floor(int64_t V, int64_t K, ScalarType state_dtype) {
  return std::sqrt(static_cast<double>(V * K)) * smallest_normal(state_dtype);
}

RecordBounds record_bounds(double output, ScalarType ring_dtype) {
  const double u_ring = unit_roundoff(ring_dtype);
  return {output + 2 * u_ring, 2 * u_ring + 1e-5, kGateRecordBound};
}

double record_floor(int64_t n, ScalarType t) { return state_floor(1, n, t); }

RoundingRates rounding_rates(const CaseConfig& c, bool tf32_products, bool directed) {
  RoundingRates r;
  // Directed rounding moves a value by up to one ulp: twice the unit roundoff of to-nearest.
  const double unit = directed ? 2.0 : 1.0;
  r.worst_case = directed;
  r.arithmetic = unit * kU32;
  r.state = unit * unit_roundoff(c.state_dtype);
  // A ring of one record is never written or read (every step flushes; the plain packed decode
  // has no ring at all): no record rounding enters.
  r.ring = c.L > 1 ? unit * unit_roundoff(c.ring_dtype) : 0.0;
  r.out = unit * unit_roundoff(c.out_dtype);
  r.product_truncated = tf32_products && c.out_dtype == ScalarType::Float32;
  r.product = r.product_truncated ? kTf32UnitRoundoff : r.out;
  if (tf32_products && c.L > 1 && c.out_dtype != ScalarType::Float32 && c.out_dtype != c.ring_dtype) r.key_extra = r.out;
  r.state_dtype = c.state_dtype;
  r.ring_dtype = c.ring_dtype;
  r.out_dtype = c.out_dtype;
  r.subnormal_ring = r.ring * smallest_normal(c.ring_dtype);
  // TF32 keeps float32's exponent range.
  r.subnormal_product = r.product * smallest_normal(r.product == r.out ? c.out_dtype : ScalarType::Float32);
  r.flush = smallest_normal(ScalarType::Float32);
  r.K = c.K;
  r.V = c.V;
  r.L = c.L;
  return r;
}

RoundingRates from_stored_records(RoundingRates r) {
  r.ring = 0;
  r.subnormal_ring = 0;
  r.key_extra = 0;
  return r;
}

RolloutBounds rollout_bounds(const CaseConfig& c, bool tf32_products, bool directed) {
  const RoundingRates r = rounding_rates(c, tf32_products, directed);
  // No cancellation: the checkpoint and the records are each no larger than the state.
  const double stores =
      stores_in_sequence(c.steps, r.state, static_cast<double>(std::max<int64_t>(1, c.V * c.K)), r.worst_case);
  // Each token's rebuild errs afresh, and the records (through d_j = beta (v - S_j k)) and the
  // checkpoints a flush writes carry each rebuild's error into every later state: by (b) they
  // add no more than their sum. To nearest they are independent and damped by beta k.k, and one
  // rebuild's term covers them (the emulations' typical ratios, docs/error-analysis.md); in the
  // worst case they add up over every token.
  const double rebuilds = r.worst_case ? static_cast<double>(std::max<int64_t>(1, c.steps)) : 1.0;
  // Triton's keys rounded through out's dtype stay so in the ring: every later rebuild reads the
  // same rounded keys, so their errors are not independent from one token to the next and add
  // over every token.
  const double key_tokens = static_cast<double>(std::max<int64_t>(1, c.steps));
  const double state =
      stores + rebuilds * (2 * (r.ring + r.product) + arithmetic_rate(r)) + std::max(rebuilds, key_tokens) * r.key_extra;
  RolloutBounds b;
  b.state = kSafety * state;
  b.output = kSafety * (r.out + kTau * state + sum_rate(r, c.K));
  b.state_per_gate_mass = kSafety * gate_rate(r);
  b.output_per_gate_mass = kTau * b.state_per_gate_mass;
  b.rates = r;
  return b;
}

RolloutBounds kernel_vs_reference_bounds(const CaseConfig& c, bool tf32_products) {
  const RolloutBounds one = rollout_bounds(c, tf32_products);
  RolloutBounds b;
  b.output = 2 * one.output;
  b.state = 2 * one.state;
  b.output_per_gate_mass = 2 * one.output_per_gate_mass;
  b.state_per_gate_mass = 2 * one.state_per_gate_mass;
  return b;
}

RolloutBounds float32_plain_bounds(int64_t K, int64_t V, int64_t steps) {
  // The models above with no storage and no records: the state carried in float32 rounds
  // once per token (sqrt(T) u, in quadrature) plus the products S k and S q. No prefix sums
  // of gates: one token's exp(g) is off by ~u |g| on a column that it shrinks by exp(g), an
  // error below u / e of the state.
  const double sqrtK = std::sqrt(static_cast<double>(K));
  const double state = std::sqrt(static_cast<double>(steps)) * kU32 + kLambda * kU32 * sqrtK;
  RolloutBounds b;
  b.state = kSafety * state;
  b.output = kSafety * (kU32 + kTau * state + kLambda * kU32 * sqrtK);
  return b;
}

ErrorBudget::ErrorBudget(const RoundingRates& rates, const Dims& dims)
    : rates_(rates), dims_(dims), entries_(dims.slots * dims.HV) {}

void ErrorBudget::Entry::add_record(double d_norm, double d_error) {
  record_d_norms.push_back(d_norm);
  record_d_errors.push_back(d_error);
  if (record_w.size() < record_d_norms.size()) record_w.emplace_back();
}

void ErrorBudget::start(int64_t slot, int64_t hv, const Matrix<double>& S0, const Matrix<double>& D,
                        const Matrix<double>& Kr, const Matrix<double>& G, int64_t n) {
  Entry& e = entries_[slot * dims_.HV + hv];
  e.record_d_norms.clear();
  e.record_d_errors.clear();
  e.checkpoint_columns = S0.colwise().norm().transpose();
  e.checkpoint_error.setZero(dims_.K);  // the case's tensors are exact inputs
  e.gate_mass.setZero(dims_.K);
  Vector<double>& decay = work_.decay;
  for (int64_t j = 0; j < n; ++j) {
    // Decay the earlier parts by this record's gate, then add the record.
    decay = G.row(j).transpose().array().exp();
    e.checkpoint_columns.array() *= decay.array();
    for (std::size_t i = 0; i < e.record_d_norms.size(); ++i) e.record_w[i].array() *= decay.array();
    e.add_record(D.row(j).norm(), 0);
    e.record_w[j] = Kr.row(j).transpose().cwiseAbs();
    e.gate_mass += G.row(j).transpose().cwiseAbs();
  }
}

void ErrorBudget::decayed_key_product(const Matrix<double>& S_before, const HeadToken<double>& h, Vector<double>& into) {
  thread_local Vector<double> decay;
  decay = h.g.array().exp();
  into.noalias() = S_before * decay.cwiseProduct(h.k);
}

ErrorBudget::TokenBounds ErrorBudget::token(int64_t slot, int64_t hv, const Matrix<double>& S_before,
                                            const HeadToken<double>& h, const Matrix<double>& S_after, bool flush,
                                            const Vector<double>* output, const Matrix<double>* history) {
  decayed_key_product(S_before, h, work_.Sk);
  return token_from_key_product(slot, hv, work_.Sk, h, S_after, flush, output, history);
}

void ErrorBudget::rebuild_error(const Entry& e, const Vector<double>& gate_mass, Vector<double>& E, Vector<double>& rebuilt) {
  Work& w = work_;
  const int64_t K = dims_.K;
  w.records_sq.setZero(K);
  w.records_sum.setZero(K);
  w.inherited.setZero(K);
  w.subnormal_sq.setZero(K);
  const double tiny = rates_.subnormal_ring + rates_.subnormal_product;  // per element of d_j and w_j
  const double sqrtV = std::sqrt(static_cast<double>(dims_.V));
  for (std::size_t j = 0; j < e.record_d_norms.size(); ++j) {
    w.records_sq += (e.record_d_norms[j] * e.record_w[j]).cwiseAbs2();
    w.records_sum += e.record_d_norms[j] * e.record_w[j];
    w.inherited += e.record_d_errors[j] * e.record_w[j];  // one state error behind them all: added, not in quadrature
    w.subnormal_sq += (tiny * (sqrtV * e.record_w[j].array() + e.record_d_norms[j])).matrix().cwiseAbs2();
  }
  w.records = w.records_sq.cwiseSqrt();
  const double arithmetic = arithmetic_rate(rates_);
  rebuilt = e.checkpoint_columns + w.records;
  // Rounding errors of the records add in quadrature (c), unless they share a sign: truncated
  // product operands always do, and in the worst case every one does.
  const Vector<double>& ring_records = rates_.worst_case ? w.records_sum : w.records;
  const Vector<double>& product_records = rates_.worst_case || rates_.product_truncated ? w.records_sum : w.records;
  E = e.checkpoint_error + (2 * rates_.ring + rates_.key_extra) * ring_records + 2 * rates_.product * product_records +
      w.subnormal_sq.cwiseSqrt() + w.inherited +
      (arithmetic + gate_rate(rates_) * gate_mass.array()).matrix().cwiseProduct(rebuilt);
}

void ErrorBudget::store_checkpoint(Entry& e, const Matrix<double>& S, const Vector<double>& E) {
  Work& w = work_;
  const int64_t K = dims_.K;
  w.column_peak = S.row(0).cwiseAbs().transpose();
  w.column_sq = S.row(0).cwiseAbs2().transpose();
  for (int64_t r = 1; r < dims_.V; ++r) {
    w.column_peak = w.column_peak.cwiseMax(S.row(r).cwiseAbs().transpose());
    w.column_sq += S.row(r).cwiseAbs2().transpose();
  }
  e.checkpoint_columns = w.column_sq.cwiseSqrt();
  // Each column keeps its share of the store: (e) per column, and the subnormal steps of
  // a checkpoint that decayed below the state dtype's smallest normal (a).
  const double subnormal_column =
      std::sqrt(static_cast<double>(dims_.V)) * rates_.state * smallest_normal(rates_.state_dtype);
  e.checkpoint_error.resize(K);
  for (int64_t c = 0; c < K; ++c)
    e.checkpoint_error[c] = add_store_error(E[c], rates_.state * e.checkpoint_columns[c], w.column_peak[c],
                                            e.checkpoint_columns[c], rates_.worst_case) +
                            subnormal_column;
  e.record_d_norms.clear();
  e.record_d_errors.clear();
  e.gate_mass.setZero(K);
}

ErrorBudget::TokenBounds ErrorBudget::token_from_key_product(int64_t slot, int64_t hv, const Vector<double>& Sk,
                                                             const HeadToken<double>& h, const Matrix<double>& S_after,
                                                             bool flush, const Vector<double>* output,
                                                             const Matrix<double>* history) {
  Entry& e = entries_[slot * dims_.HV + hv];
  Work& w = work_;
  const int64_t K = dims_.K;
  // A history checkpoint stores the state before the token: its error is the rebuild's
  // before the token's decay.
  if (history) rebuild_error(e, e.gate_mass, w.E_prev, w.rebuilt_prev);
  // The flush floor of the decay and the rebuild (a): each element of the state before the
  // token times its decayed gate, each record's product, the token's d k^T, every result at
  // most the flush step off; per column, relative to the parts before this token's decay.
  const double sqrtV = std::sqrt(static_cast<double>(dims_.V));
  w.flushed = e.checkpoint_columns;
  for (std::size_t j = 0; j < e.record_d_norms.size(); ++j) w.flushed += e.record_d_norms[j] * e.record_w[j];
  w.flushed = rates_.flush * (w.flushed.array() + sqrtV * static_cast<double>(e.record_d_norms.size() + 2)).matrix();
  // Decay every part by the token's gate (per column), then gather the parts per column.
  w.decay = h.g.array().exp();
  e.checkpoint_columns.array() *= w.decay.array();
  e.checkpoint_error.array() *= w.decay.array();
  for (std::size_t j = 0; j < e.record_d_norms.size(); ++j) e.record_w[j].array() *= w.decay.array();
  w.gate_mass = e.gate_mass + h.g.cwiseAbs();
  // Error of the decayed state S_dec per column.
  rebuild_error(e, w.gate_mass, w.E_dec, w.rebuilt);
  w.E_dec += w.flushed;
  const double arithmetic = arithmetic_rate(rates_);
  // The token: d = beta (v - S_dec k) carries beta ||dS_dec k|| <= beta ||E_dec|| ||k|| of it
  // into d k^T (the projection (I - beta k k^T) moves error between columns).
  w.d = h.beta * (h.v - Sk);
  const double d_norm = w.d.norm();
  const double d_error = h.beta * w.E_dec.norm() * h.k.norm() + arithmetic * d_norm +
                         rates_.flush * sqrtV * (std::abs(h.beta) * static_cast<double>(K) + 2);
  w.E_new = w.E_dec + d_error * h.k.cwiseAbs();
  w.parts = w.rebuilt + d_norm * h.k.cwiseAbs();
  const double N = S_after.norm();
  max_gate_mass_ = std::max(max_gate_mass_, w.gate_mass.maxCoeff());
  if (N > 0) max_cancellation_ = std::max(max_cancellation_, w.parts.norm() / N);

  TokenBounds b;
  // Output o = S q_scaled: the store, the state's column errors seen through q (d), the product.
  if (output) w.o = *output;
  else w.o.noalias() = S_after * h.q_scaled;
  const double qn = h.q_scaled.norm(), o = w.o.norm();
  const double seen = w.E_new.cwiseProduct(h.q_scaled).norm();
  const double out_error =
      add_store_error(kTau * seen, rates_.out * o, peak_of(w.o, rates_.worst_case), o, rates_.worst_case) +
      sum_rate(rates_, K) * N * qn + sqrtV * rates_.out * smallest_normal(rates_.out_dtype) +
      rates_.flush * sqrtV * static_cast<double>(K + 2);
  const double out_scale = std::max(o, output_floor(N, qn, K, dims_.V, rates_.out_dtype));
  b.output = out_scale > 0 ? kSafety * out_error / out_scale : 0;
  b.output_scale = out_scale;
  b.delta_norm = d_norm;
  b.delta_error = kSafety * d_error;
  b.state_norm = N;
  b.q_scaled_norm = qn;
  // Checkpoint: the state's error and the store, independent (c); the state stored is the one
  // after the token, or before it for a history checkpoint.
  const Matrix<double>& stored = history ? *history : S_after;
  const Vector<double>& stored_error = history ? w.E_prev : w.E_new;
  const double NS = stored.norm();
  const double subnormal_element = rates_.state * smallest_normal(rates_.state_dtype);
  const double subnormal = std::sqrt(static_cast<double>(dims_.V * K)) * subnormal_element;
  // The state's largest magnitude: the same maxima as a pass over the rows (a NaN makes the
  // norm NaN, and the store's factor rho 1, whatever the maximum).
  const double state_peak = rates_.worst_case ? 0.0 : stored.cwiseAbs().maxCoeff();
  const double state_error = add_store_error(stored_error.norm(), rates_.state * NS, state_peak, NS, rates_.worst_case) + subnormal;
  const double state_scale = std::max(NS, state_floor(dims_.V, K, rates_.state_dtype));
  b.state = state_scale > 0 ? kSafety * state_error / state_scale : 0;
  b.state_scale = state_scale;
  // Advance: a flush starts a period from the new checkpoint; an append adds a record; a
  // history checkpoint starts a period from the state before the token (decayed by it, as
  // every part is now) holding the token's record.
  if (flush) {
    store_checkpoint(e, S_after, w.E_new);
    return b;
  }
  if (history) {
    store_checkpoint(e, *history, w.E_prev);
    e.checkpoint_columns.array() *= w.decay.array();
    e.checkpoint_error.array() *= w.decay.array();
  }
  e.add_record(d_norm, d_error);
  e.record_w[e.record_d_norms.size() - 1] = h.k.cwiseAbs();
  e.gate_mass += h.g.cwiseAbs();
  return b;
}

}  // namespace kda::reference
