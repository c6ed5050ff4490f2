// The family's CPU reference step and its readers (recurrence.hpp): the plain KDA recurrence of
// reference/ on T tokens per row, a per-head gate (Gated DeltaNet) read as the same gate on
// every key channel.
#include "operators/fla_recurrent_common/recurrence.hpp"

#include <stdexcept>

#include "operators/fla_recurrent_common/contract.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

io::Block state_block(const DLTensor& pool, const Dims& d, bool v_first, int64_t slot, int64_t hv) {
  const int64_t s0 = io::stride_of(pool, 0), s1 = io::stride_of(pool, 1), s2 = io::stride_of(pool, 2),
                s3 = io::stride_of(pool, 3);
  return v_first ? io::Block{slot * s0 + hv * s1, d.V, s2, d.K, s3} : io::Block{slot * s0 + hv * s1, d.V, s3, d.K, s2};
}

template <class Scalar>
void step(const StepArgs& a, const Dims& d) {
  const FlaTokens<Scalar> x = load_fla_tokens<Scalar>(a, d);
  HeadToken<Scalar> h;
  Matrix<Scalar> S;
  Vector<Scalar> o;
  for (int64_t row = 0; row < d.B; ++row) {
    if (fla_index(*a.ssm_state_indices, row, 0) < 0) {  // padding: zeros out, no state read or written
      io::zero(*a.out, {row * d.T * d.HV * d.V, 1, 0, d.T * d.HV * d.V, 1});
      continue;
    }
    const int64_t start = fla_start_slot(a, row);
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      read_fla_state(*a.initial_state, d, a.state_v_first, start, hv, S);
      for (int64_t t = 0; t < d.T; ++t) {
        fla_head(x, d, row, t, hv, h);
        plain_head_update(S, h, o);
        io::scatter(*a.out, {((row * d.T + t) * d.HV + hv) * d.V, 1, 0, d.V, 1}, Matrix<Scalar>(o.transpose()));
        write_fla_state(*a.initial_state, d, a.state_v_first, fla_write_slot(a, row, t), hv, S);
      }
    }
  }
}

}  // namespace

template <class Scalar>
FlaTokens<Scalar> load_fla_tokens(const StepArgs& a, const Dims& d) {
  FlaTokens<Scalar> x;
  LayerParams<Scalar>& p = x.params;
  p.dims = d;
  Matrix<Scalar> m;
  io::gather(*a.A_log, {0, 1, 0, d.HV, 1}, m);
  p.A_log = m.row(0).transpose();
  const bool per_head = a.g->ndim == 3;  // g [B, T, HV], dt_bias [HV]: one gate per value head
  if (per_head) {
    io::gather(*a.dt_bias, {0, 1, 0, d.HV, 1}, m);
    p.dt_bias = m.transpose().replicate(1, d.K);
  } else {
    io::gather(*a.dt_bias, {0, d.HV, d.K, d.K, 1}, p.dt_bias);
  }
  p.scale = static_cast<Scalar>(a.scale);
  p.l2norm = a.use_qk_l2norm_in_kernel;
  if (!per_head) p.lower_bound = a.lower_bound;
  p.beta_dtype = ScalarType::Float32;
  x.gate_in_kernel = a.use_gate_in_kernel;
  x.beta_sigmoid = a.use_beta_sigmoid_in_kernel;
  x.neg_eigval = a.allow_neg_eigval;
  const int64_t HK = d.H * d.K, HVV = d.HV * d.V, HVK = d.HV * d.K;
  x.tokens.resize(d.T);
  Matrix<Scalar> q, k, v;
  for (int64_t t = 0; t < d.T; ++t) {
    TokenInputs<Scalar>& in = x.tokens[t];
    io::gather(*a.q, {t * HK, d.B, d.T * HK, HK, 1}, q);
    io::gather(*a.k, {t * HK, d.B, d.T * HK, HK, 1}, k);
    io::gather(*a.v, {t * HVV, d.B, d.T * HVV, HVV, 1}, v);
    in.qkv.resize(d.B, 2 * HK + HVV);
    in.qkv << q, k, v;
    if (per_head) {  // each head's gate repeated over its K channels, as prepare_head reads a
      io::gather(*a.g, {t * d.HV, d.B, d.T * d.HV, d.HV, 1}, m);
      in.a.resize(d.B, HVK);
      for (int64_t hv = 0; hv < d.HV; ++hv) in.a.middleCols(hv * d.K, d.K) = m.col(hv).replicate(1, d.K);
    } else {
      io::gather(*a.g, {t * HVK, d.B, d.T * HVK, HVK, 1}, in.a);
    }
    io::gather(*a.beta, {t * d.HV, d.B, d.T * d.HV, d.HV, 1}, in.b);
  }
  return x;
}

template <class Scalar>
void fla_head(const FlaTokens<Scalar>& x, const Dims& d, int64_t row, int64_t t, int64_t hv, HeadToken<Scalar>& h) {
  const TokenInputs<Scalar>& in = x.tokens[t];
  prepare_head(x.params, in, row, hv, h);  // q, k, v; the in-kernel gate; beta = sigmoid(b) in float32
  if (!x.gate_in_kernel) h.g = in.a.row(row).segment(hv * d.K, d.K).transpose();
  if (!x.beta_sigmoid) h.beta = in.b(row, hv);
  else if (x.neg_eigval) h.beta *= Scalar(2);
}

template <class Scalar>
void read_fla_state(const DLTensor& pool, const Dims& d, bool v_first, int64_t slot, int64_t hv, Matrix<Scalar>& S) {
  io::gather(pool, state_block(pool, d, v_first, slot, hv), S);
}

template <class Scalar>
void write_fla_state(DLTensor& pool, const Dims& d, bool v_first, int64_t slot, int64_t hv, const Matrix<Scalar>& S) {
  io::scatter(pool, state_block(pool, d, v_first, slot, hv), S);
}

template FlaTokens<float> load_fla_tokens<float>(const StepArgs&, const Dims&);
template FlaTokens<double> load_fla_tokens<double>(const StepArgs&, const Dims&);
template void fla_head<float>(const FlaTokens<float>&, const Dims&, int64_t, int64_t, int64_t, HeadToken<float>&);
template void fla_head<double>(const FlaTokens<double>&, const Dims&, int64_t, int64_t, int64_t, HeadToken<double>&);
template void read_fla_state<float>(const DLTensor&, const Dims&, bool, int64_t, int64_t, Matrix<float>&);
template void read_fla_state<double>(const DLTensor&, const Dims&, bool, int64_t, int64_t, Matrix<double>&);
template void write_fla_state<float>(DLTensor&, const Dims&, bool, int64_t, int64_t, const Matrix<float>&);
template void write_fla_state<double>(DLTensor&, const Dims&, bool, int64_t, int64_t, const Matrix<double>&);

Dims fla_recurrent_step(const StepArgs& given, Rounding rounding, FlaGate gate) {
  const StepArgs args = fla_recurrent_args(given, gate);
  const Dims dims = validate_fla_recurrent(args, Backend::Cpu, gate);
  check_fla_runtime_values(args, dims);
  if (args.beta->ndim == 4)
    throw std::invalid_argument("the recurrent decode's reference does not model a per-channel beta [B, T, HV, V]");
  if (rounding == Rounding::Kernel) step<float>(args, dims);
  else step<double>(args, dims);
  return dims;
}

}  // namespace kda::reference
