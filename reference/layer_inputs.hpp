// The inputs of the KDA math, lifted out of the DLPack tensors once and held as Eigen
// matrices of the arithmetic scalar (double = ground truth, float = what kernels compute).
// Every model of reference/ (plain recurrence, ReplaySSM step, pure-double ReplaySSM model)
// reads its inputs through these, so the only per-element dtype switch is in the loaders.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <vector>

#include "contract/scalar_type.hpp"
#include "contract/step_args.hpp"
#include "reference/matrix.hpp"

namespace kda::reference {

// The fixed parameters of one layer.
template <class Scalar>
struct LayerParams {
  Dims dims;
  Vector<Scalar> A_log;   // [HV]
  Matrix<Scalar> dt_bias; // [HV, K] (1-D and 2-D dt_bias read the same)
  Scalar scale = 1;
  bool l2norm = false;
  std::optional<double> lower_bound;  // absent: softplus gate
  // semantics.md defines beta = sigmoid(b) rounded through b's dtype and back (PyTorch's
  // sigmoid(b).to(b.dtype).float(): a float32 sigmoid, then RNE). That rounding is a step
  // function, so it is part of the function, not an arithmetic rounding point: every model
  // (float64 ones included) evaluates this beta with the same float32 code. Were the float64
  // models to use a float64 sigmoid, a one-ulp float32 difference next to a rounding
  // midpoint of b's dtype would move beta by one ulp of that dtype (2^-7 bfloat16, 2^-10
  // float16 relative), which no tolerance built from the other dtypes covers. A kernel whose
  // float32 sigmoid differs from this one can still land on the other side of a midpoint in
  // about 2^-15 of its betas; its comparison must allow for that.
  ScalarType beta_dtype = ScalarType::Float32;
};

// One token's inputs for a batch of rows.
template <class Scalar>
struct TokenInputs {
  std::vector<int64_t> slot;  // [B]; negative = padding row
  Matrix<Scalar> qkv;         // [B, 2*H*K + HV*V]
  Matrix<Scalar> a;           // [B, HV*K] (2-D and 3-D a read the same)
  Matrix<Scalar> b;           // [B, HV]
};

// The per-(row, value head) quantities every model derives from one token (semantics.md):
// q already L2-normalized (if asked) and multiplied by scale, k normalized (if asked),
// g = the log-decay gate per K column, beta (float32 sigmoid) rounded through beta_dtype.
template <class Scalar>
struct HeadToken {
  Vector<Scalar> q_scaled, k, v, g;
  Scalar beta = 0;
};

// Loaders: read host tensors of any dtype and strides (validated beforehand). Defined for
// Scalar = float and double.
template <class Scalar>
LayerParams<Scalar> load_params(const StepArgs& args, const Dims& dims);
template <class Scalar>
TokenInputs<Scalar> load_token(const StepArgs& args, const Dims& dims);
// The same into `in`, whose matrices are reused (no allocation from token to token).
template <class Scalar>
void load_token(const StepArgs& args, const Dims& dims, TokenInputs<Scalar>& in);

// Derives q, k, v, g, beta of (row, hv). Query/key head h = hv / (HV / H).
template <class Scalar>
HeadToken<Scalar> prepare_head(const LayerParams<Scalar>& p, const TokenInputs<Scalar>& in,
                               int64_t row, int64_t hv);
// The same into `t`, whose vectors are reused.
template <class Scalar>
void prepare_head(const LayerParams<Scalar>& p, const TokenInputs<Scalar>& in, int64_t row, int64_t hv,
                  HeadToken<Scalar>& t);

}  // namespace kda::reference
