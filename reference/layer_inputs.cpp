#include "reference/layer_inputs.hpp"

#include <cmath>

#include "reference/tensor_io.hpp"

namespace kda::reference {

template <class Scalar>
LayerParams<Scalar> load_params(const StepArgs& args, const Dims& dims) {
  LayerParams<Scalar> p;
  p.dims = dims;
  Matrix<Scalar> m;
  // A_log has unit stride (V6); dt_bias is contiguous (W2), so [HV, K] row-major.
  io::gather(*args.A_log, {0, 1, 0, dims.HV, 1}, m);
  p.A_log = m.row(0).transpose();
  io::gather(*args.dt_bias, {0, dims.HV, dims.K, dims.K, 1}, p.dt_bias);
  p.scale = static_cast<Scalar>(args.scale);
  p.l2norm = args.use_qk_l2norm_in_kernel;
  p.lower_bound = args.lower_bound;
  p.beta_dtype = *scalar_type_of(args.b->dtype);
  return p;
}

template <class Scalar>
void load_token(const StepArgs& args, const Dims& dims, TokenInputs<Scalar>& in) {
  in.slot = io::read_indices(*args.ssm_state_indices);
  const int64_t qkv_dim = 2 * dims.H * dims.K + dims.HV * dims.V;
  // mixed_qkv and b: unit last stride (V2, V4), any row stride. a: contiguous (W1) for
  // ReplaySSM, which may make it 3-D; 2-D with a unit last stride (V3, V4) for the plain
  // packed decode, whose rows may be padded.
  io::gather(*args.mixed_qkv, {0, dims.B, io::stride_of(*args.mixed_qkv, 0), qkv_dim, 1}, in.qkv);
  const int64_t a_row_stride = args.a->ndim == 2 ? io::stride_of(*args.a, 0) : dims.HV * dims.K;
  io::gather(*args.a, {0, dims.B, a_row_stride, dims.HV * dims.K, 1}, in.a);
  io::gather(*args.b, {0, dims.B, io::stride_of(*args.b, 0), dims.HV, 1}, in.b);
}

template <class Scalar>
TokenInputs<Scalar> load_token(const StepArgs& args, const Dims& dims) {
  TokenInputs<Scalar> in;
  load_token(args, dims, in);
  return in;
}

template <class Scalar>
void prepare_head(const LayerParams<Scalar>& p, const TokenInputs<Scalar>& in, int64_t row, int64_t hv,
                  HeadToken<Scalar>& t) {
  const Dims& d = p.dims;
  const int64_t h = hv / (d.HV / d.H);
  const auto qkv = in.qkv.row(row);
  t.q_scaled = qkv.segment(h * d.K, d.K).transpose();  // q, then normalized (if asked) and scaled in place
  t.k = qkv.segment(d.H * d.K + h * d.K, d.K).transpose();
  t.v = qkv.segment(2 * d.H * d.K + hv * d.V, d.V).transpose();
  if (p.l2norm) {
    const Scalar eps = static_cast<Scalar>(1e-6);
    t.q_scaled /= std::sqrt(t.q_scaled.squaredNorm() + eps);
    t.k /= std::sqrt(t.k.squaredNorm() + eps);
  }
  t.q_scaled *= p.scale;
  // The gate's argument x = a + dt_bias per column.
  const auto x = in.a.row(row).segment(hv * d.K, d.K).transpose() + p.dt_bias.row(hv).transpose();
  const Scalar A = std::exp(p.A_log(hv));
  if (p.lower_bound) {
    const auto lb = static_cast<Scalar>(*p.lower_bound);
    t.g = x.unaryExpr([&](Scalar xi) { return lb / (Scalar(1) + std::exp(-A * xi)); });
  } else {
    // softplus(x) = log(1 + exp(x)) for x <= 20, else x (semantics.md).
    t.g = x.unaryExpr([&](Scalar xi) { return -A * (xi <= Scalar(20) ? std::log1p(std::exp(xi)) : xi); });
  }
  // beta in float32 whatever Scalar is: see LayerParams::beta_dtype.
  const float b = static_cast<float>(in.b(row, hv));
  t.beta = static_cast<Scalar>(io::round_through(p.beta_dtype, 1.0f / (1.0f + std::exp(-b))));
}

template <class Scalar>
HeadToken<Scalar> prepare_head(const LayerParams<Scalar>& p, const TokenInputs<Scalar>& in, int64_t row,
                               int64_t hv) {
  HeadToken<Scalar> t;
  prepare_head(p, in, row, hv, t);
  return t;
}

template LayerParams<float> load_params<float>(const StepArgs&, const Dims&);
template LayerParams<double> load_params<double>(const StepArgs&, const Dims&);
template TokenInputs<float> load_token<float>(const StepArgs&, const Dims&);
template TokenInputs<double> load_token<double>(const StepArgs&, const Dims&);
template void load_token<float>(const StepArgs&, const Dims&, TokenInputs<float>&);
template void load_token<double>(const StepArgs&, const Dims&, TokenInputs<double>&);
template HeadToken<float> prepare_head<float>(const LayerParams<float>&, const TokenInputs<float>&, int64_t, int64_t);
template HeadToken<double> prepare_head<double>(const LayerParams<double>&, const TokenInputs<double>&, int64_t, int64_t);
template void prepare_head<float>(const LayerParams<float>&, const TokenInputs<float>&, int64_t, int64_t, HeadToken<float>&);
template void prepare_head<double>(const LayerParams<double>&, const TokenInputs<double>&, int64_t, int64_t,
                                   HeadToken<double>&);

}  // namespace kda::reference
