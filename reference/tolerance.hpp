// The tolerance model: how far a computation with the kernel's rounding points may lie from
// the plain float64 recurrence, as a normwise relative error per block (compare.hpp).
// Derived from the unit roundoffs of the dtypes, the sizes and (in the running budget) the
// magnitudes along the trajectory; the derivation is in tolerance.cpp's header comment (the
// one place that documents it).
#pragma once
#include <cstdint>

#include <optional>
#include <vector>

#include "cases/case_config.hpp"
#include "contract/scalar_type.hpp"
#include "reference/layer_inputs.hpp"

namespace kda::reference {

// Unit roundoff of round-to-nearest: 2^-24 float32, 2^-8 bfloat16, 2^-11 float16.
double unit_roundoff(ScalarType t);
// TF32 keeps float16's 10-bit mantissa. A tensor core given float32 operands for a TF32 dot
// (Triton's default) drops their low 13 bits: truncation, a relative error below 2^-10 (one
// ulp, not half) and always toward zero, so the errors of a sum's terms do not cancel.
inline constexpr double kTf32UnitRoundoff = 1.0 / 1024.0;

// Smallest positive normal number: 2^-126 float32 and bfloat16, 2^-14 float16.
double smallest_normal(ScalarType t);

// The floors of compare.hpp. An output head o = S q_scaled (S the state after the token) is
// judged against max(||o||, ||S||_F ||q_scaled|| / sqrt(K), sqrt(V) * smallest_normal(out));
// a checkpoint against max(||S||_F, sqrt(V*K) * smallest_normal(state)).
double output_floor(double state_norm, double q_scaled_norm, int64_t K, int64_t V, ScalarType out_dtype);
double state_floor(int64_t V, int64_t K, ScalarType state_dtype);

// The unit roundoffs of a rollout's rounding points, and the sizes the model needs.
struct RoundingRates {
  double state = 0;    // u_s: checkpoint stores
  double ring = 0;     // u_r: d and k ring stores
  double product = 0;  // u_p: the rebuild's product operands (out's dtype, or TF32)
  double out = 0;      // u_o: output stores
  double arithmetic = 0x1p-24;  // u: float32 operations
  // The product operands are truncated (TF32): their errors have one sign, so they add up
  // linearly over the records instead of in quadrature.
  bool product_truncated = false;
  // Triton's keys rounded through out's dtype before the ring's (where out is narrower): one
  // more rounding of every key record.
  double key_extra = 0;
  // Every rounding may go the worst way (directed rounding, tolerance.cpp "WORST CASE"): no
  // error is independent of another, every sum of them is linear.
  bool worst_case = false;
  ScalarType state_dtype = ScalarType::Float32, ring_dtype = ScalarType::Float32, out_dtype = ScalarType::Float32;
  // Below the smallest normal, stores round in absolute steps: the ring's and the product
  // operands' absolute error per element there (u * smallest normal of their dtypes).
  double subnormal_ring = 0, subnormal_product = 0;
  // float32 arithmetic below float32's smallest normal: a result there is rounded in absolute
  // steps, or flushed to zero by a kernel built to (Triton's, nvcc --use_fast_math): at most
  // the smallest normal per operation, whatever the magnitude of the operands.
  double flush = 0;
  int64_t K = 0, V = 0, L = 0;
};
// tf32_products: the Triton profile's points: the rebuild's product operands truncated to
// TF32 where out is float32, stored keys rounded through out's dtype.
// directed: every rounding point rounds to the neighbour away from the exact value (the
// profile emulations' worst case): unit roundoffs of one ulp (twice round-to-nearest's) and
// the worst-case (linear) sums; truncation, which has no freedom, stays as it is.
RoundingRates rounding_rates(const CaseConfig& config, bool tf32_products = false, bool directed = false);
// The rates of ONE step computed from stored tensors (the step-by-step suite: the reference
// reads the checkpoint and ring records the backend stored, so they are exact inputs there):
// the records' own stores (ring rounding, Triton's keys through out's dtype) already happened
// and enter no more; every rounding of the step itself stays.
RoundingRates from_stored_records(RoundingRates rates);

struct RolloutBounds {
  // A-priori bounds: per output head o[row, hv] and per checkpoint S[slot, hv] at any token,
  // for states built without cancellation (see tolerance.cpp). For callers that compare one
  // step at a time against a reference.
  double output = 0;
  double state = 0;
  // Added per unit of gate mass G (the largest sum of |g| over the records one rebuild
  // combines): float32 prefix sums of the gates lose 2 u G in exp(total - prefix).
  double output_per_gate_mass = 0;
  double state_per_gate_mass = 0;
  double output_at(double gate_mass) const { return output + output_per_gate_mass * gate_mass; }
  double state_at(double gate_mass) const { return state + state_per_gate_mass * gate_mass; }
  // When set, the rollout driver replaces the a-priori bounds by the running error budget
  // (ErrorBudget below), which follows the actual trajectory.
  std::optional<RoundingRates> rates;
};

// The a-posteriori model: a running first-order error budget of a rollout, fed with the
// float64 ground truth, one entry per (slot, hv). It bounds the error a computation with the
// given rounding points can have accumulated, from the magnitudes of what it rounded
// (checkpoint, ring records, products) relative to the state they sum to; so cancellation
// (a state much smaller than its parts) widens the bound exactly where it amplifies errors.
class ErrorBudget {
 public:
  ErrorBudget(const RoundingRates& rates, const Dims& dims);
  // The starting checkpoint S0 [V, K] of (slot, hv) and its first n ring records
  // (D [>=n, V], Kr [>=n, K], G [>=n, K]) as the case's tensors hold them.
  void start(int64_t slot, int64_t hv, const Matrix<double>& S0, const Matrix<double>& D, const Matrix<double>& Kr,
             const Matrix<double>& G, int64_t n);
  struct TokenBounds {
    double output = 0;  // for this token's o[row, hv], relative to output_scale
    double state = 0;   // for the checkpoint written by this token's flush, relative to state_scale
    // compare's denominators for the float64 truth: max(||o||, output_floor), max(||S||, state_floor)
    double output_scale = 0, state_scale = 0;
    // The token's delta d = beta (v - S k) before its store: the float64 value's norm and the
    // absolute error bound of the computed one (the safety factor included).
    double delta_norm = 0, delta_error = 0;
    // ||S_after||_F and ||q_scaled||, as the bounds used them (a caller's output floor needs them too).
    double state_norm = 0, q_scaled_norm = 0;
  };
  // One token of (slot, hv): the float64 state before and after it, and the token's head.
  // Returns this token's bounds, then advances (flush: the new checkpoint starts a period).
  // `output`: S_after * head.q_scaled where the caller has it already (else computed here).
  // `history`: a circular ring's history checkpoint (circular-replay.md), the float64 state
  // before the token, which the step stores as the checkpoint (TokenBounds::state bounds
  // that store) while it appends the token's record: the period restarts holding it alone.
  TokenBounds token(int64_t slot, int64_t hv, const Matrix<double>& S_before, const HeadToken<double>& head,
                    const Matrix<double>& S_after, bool flush, const Vector<double>* output = nullptr,
                    const Matrix<double>* history = nullptr);
  // All that token() reads of the state before the token: S_before (exp(head.g) .* head.k),
  // for a caller that updates the state in place before asking for the bounds...
  static void decayed_key_product(const Matrix<double>& S_before, const HeadToken<double>& head, Vector<double>& into);
  // ...and token() from it.
  TokenBounds token_from_key_product(int64_t slot, int64_t hv, const Vector<double>& decayed_key_product,
                                     const HeadToken<double>& head, const Matrix<double>& S_after, bool flush,
                                     const Vector<double>* output = nullptr, const Matrix<double>* history = nullptr);
  // The chain of (from_slot, hv) continued in (to_slot, hv): a step that reads one slot's state
  // and stores the states after its tokens in others (speculative decoding) carries the
  // budget with it. to_slot's own budget is replaced.
  void continue_in(int64_t from_slot, int64_t to_slot, int64_t hv) {
    entries_[to_slot * dims_.HV + hv] = entries_[from_slot * dims_.HV + hv];
  }
  double max_gate_mass() const { return max_gate_mass_; }
  double max_cancellation() const { return max_cancellation_; }  // max (sum of parts) / ||S||

 private:
  // One (slot, hv): the parts its state is built from, decayed to the present, with
  // per-K-column error bounds (decay and cancellation act per column).
  struct Entry {
    Vector<double> checkpoint_columns;  // column norms of the checkpoint
    Vector<double> checkpoint_error;    // column error bounds of the checkpoint
    std::vector<double> record_d_norms;   // ||d_j|| of the records present
    std::vector<double> record_d_errors;  // error bound of d_j inherited from the state it came from
    // |k_j| * exp(decay since j) of the records present: the first record_d_norms.size() of
    // them (the vectors past those are kept for the next period's records: no allocation).
    std::vector<Vector<double>> record_w;
    Vector<double> gate_mass;           // per column: sum over present records of |g_j[c]|
    void add_record(double d_norm, double d_error);  // record_w's next vector is then to be set
  };
  // The column error bounds of the state rebuilt from e's parts as they stand (E) and its
  // parts' column magnitudes (rebuilt), with `gate_mass` the gates summed into the rebuild.
  void rebuild_error(const Entry& e, const Vector<double>& gate_mass, Vector<double>& E, Vector<double>& rebuilt);
  // A checkpoint's store of state S (its column norms and peaks from S) on top of column errors E.
  void store_checkpoint(Entry& e, const Matrix<double>& S, const Vector<double>& E);
  // A token's per-column working vectors, kept from token to token (no allocation per head).
  struct Work {
    Vector<double> decay, records_sq, records_sum, inherited, subnormal_sq, records, gate_mass, rebuilt, E_dec, Sk, d,
        E_new, parts, o, column_peak, column_sq, E_prev, rebuilt_prev, flushed;
  };
  RoundingRates rates_;
  Dims dims_;
  std::vector<Entry> entries_;  // slot * HV + hv
  Work work_;
  double max_gate_mass_ = 0, max_cancellation_ = 1;
};

// Bounds for a rollout of config.steps tokens with the kernel's rounding points (reference
// Rounding::Kernel, or a kernel) against the plain float64 recurrence.
// tf32_products: the rebuild's products may run in TF32 when out is float32 (a tensor-core
// kernel); the reference never does, so the reference uses false.
RolloutBounds rollout_bounds(const CaseConfig& config, bool tf32_products = false, bool directed = false);

// Two computations each within rollout_bounds of the ground truth are within twice the bound
// of each other (triangle inequality on ||x - ref|| for the same ref): kernel vs reference.
RolloutBounds kernel_vs_reference_bounds(const CaseConfig& config, bool tf32_products = true);

// Bounds for the plain recurrence in float32 arithmetic (no storage rounding) against float64,
// over `steps` tokens with key dim K and value dim V.
RolloutBounds float32_plain_bounds(int64_t K, int64_t V, int64_t steps);

// A gate record g (stored in float32) computed twice in float32 arithmetic (the kernel and
// the reference), per element. Wherever g is a normal float the argument of its exp is below
// 88 in magnitude (beyond it exp leaves the normal range: the callers' subnormal floor).
// With a lower bound the argument is A x, where A = exp(A_log) carries up to 2 ulps (<= 4 u:
// CUDA's expf bound) and the product one rounding: <= 5 u relatively, <= 5 * 88 u absolutely,
// which exp turns into as much relative error of g; exp itself, 1 + e, the division and the
// factor lower_bound add <= 10 u. Without a lower bound the argument is x = a + dt_bias (one
// rounding, 88 u) and A scales the result (5 u): less. Two computations: 2 (5 * 88 + 10) u
// = 5.4e-5 (observed at most 1.53e-5 = 2^-16, on 1-element gates of adversarial cases).
inline constexpr double kGateRecordBound = 2 * (5 * 88 + 10) * 0x1p-24;

// Ring records written by two computations (a kernel and the reference), relative to
// compare.hpp with record_floor(n): once the two sides differ by float32 noise a stored value
// may round either way, one unit of the ring dtype (2 u_r). A delta d = beta (v - S k) has
// the output's error besides (`output` = the output bound at the step's gate mass); a key is
// the token's (normalized) key, 1e-5 for its float32 normalization (not derived); a gate
// (float32) kGateRecordBound.
struct RecordBounds {
  double d = 0, k = 0, g = 0;
};
RecordBounds record_bounds(double output, ScalarType ring_dtype);

// A record of n elements in dtype t keeps only absolute precision in t's subnormal range
// (fact (a) of tolerance.cpp), as state_floor allows for a checkpoint: sqrt(n) times t's
// smallest normal.
double record_floor(int64_t n, ScalarType t);

// Pure float64 ReplaySSM (ReplayModel<double>) vs the plain float64 recurrence: the property
// bound of the pure-double model, a fixed 1e-10.
inline constexpr double kPureDoubleBound = 1e-10;

}  // namespace kda::reference
