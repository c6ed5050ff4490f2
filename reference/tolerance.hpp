// The tolerance model: how far a computation with the kernel's rounding points may lie from
// the plain float64 recurrence, as a normwise relative error per block (compare.hpp).
// Derived from the unit roundoffs of the dtypes and the sizes; the derivation is in
// tolerance.cpp's header comment (the one place that documents it).
#pragma once
#include <cstdint>

#include "cases/case_config.hpp"
#include "contract/scalar_type.hpp"

namespace kda::reference {

// Unit roundoff of round-to-nearest: 2^-24 float32, 2^-8 bfloat16, 2^-11 float16.
double unit_roundoff(ScalarType t);
// TF32 keeps float16's 10-bit mantissa: 2^-11.
inline constexpr double kTf32UnitRoundoff = 1.0 / 2048.0;

// Smallest positive normal number: 2^-126 float32 and bfloat16, 2^-14 float16.
double smallest_normal(ScalarType t);

// The floors of compare.hpp. An output head o = S q_scaled (S the state after the token) is
// judged against max(||o||, ||S||_F ||q_scaled|| / sqrt(K), sqrt(V) * smallest_normal(out));
// a checkpoint against max(||S||_F, sqrt(V*K) * smallest_normal(state)).
double output_floor(double state_norm, double q_scaled_norm, int64_t K, int64_t V, ScalarType out_dtype);
double state_floor(int64_t V, int64_t K, ScalarType state_dtype);

struct RolloutBounds {
  double output = 0;  // per output head o[row, hv], at any token of the rollout
  double state = 0;   // per checkpoint S[slot, hv], after any flush of the rollout
  // Added per unit of gate mass G (the largest sum of |g| over the records one rebuild
  // combines): float32 prefix sums of the gates lose 2 u G in exp(total - prefix). The
  // rollout driver measures G; a fixed-bound caller may pass its own G to at().
  double output_per_gate_mass = 0;
  double state_per_gate_mass = 0;
  double output_at(double gate_mass) const { return output + output_per_gate_mass * gate_mass; }
  double state_at(double gate_mass) const { return state + state_per_gate_mass * gate_mass; }
};

// Bounds for a rollout of config.steps tokens with the kernel's rounding points (reference
// Rounding::Kernel, or a kernel) against the plain float64 recurrence.
// tf32_products: the rebuild's products may run in TF32 when out is float32 (a tensor-core
// kernel); the reference never does, so the reference uses false.
RolloutBounds rollout_bounds(const CaseConfig& config, bool tf32_products = false);

// Two computations each within rollout_bounds of the ground truth are within twice the bound
// of each other (triangle inequality on ||x - ref|| for the same ref): kernel vs reference.
RolloutBounds kernel_vs_reference_bounds(const CaseConfig& config, bool tf32_products = true);

// Bounds for the plain recurrence in float32 arithmetic (no storage rounding) against float64,
// over `steps` tokens with key dim K and value dim V.
RolloutBounds float32_plain_bounds(int64_t K, int64_t V, int64_t steps);

// Pure float64 ReplaySSM (ReplayModel<double>) vs the plain float64 recurrence: the property
// bound of issue 3, a fixed 1e-10.
inline constexpr double kPureDoubleBound = 1e-10;

}  // namespace kda::reference
