#include "reference/plain_recurrence.hpp"

#include "reference/exp.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {

template <class Scalar>
PlainState<Scalar>::PlainState(const Dims& dims)
    : dims_(dims), S_(dims.slots * dims.HV, Matrix<Scalar>::Zero(dims.V, dims.K)) {}

template <class Scalar>
PlainState<Scalar> PlainState<Scalar>::from_tensor(const DLTensor& t, const Dims& dims) {
  PlainState s(dims);
  const int64_t s0 = io::stride_of(t, 0), s1 = io::stride_of(t, 1), s2 = io::stride_of(t, 2), s3 = io::stride_of(t, 3);
  for (int64_t slot = 0; slot < dims.slots; ++slot)
    for (int64_t hv = 0; hv < dims.HV; ++hv)
      io::gather(t, {slot * s0 + hv * s1, dims.V, s2, dims.K, s3}, s.at(slot, hv));
  return s;
}

template <class Scalar>
void plain_head_update(Matrix<Scalar>& S, const HeadToken<Scalar>& t, Vector<Scalar>& o) {
  thread_local Vector<Scalar> decay, Sk, d;
  decay = exp_of(t.g.array());  // K exponentials, not V*K
  S.array().rowwise() *= decay.transpose().array();
  Sk.noalias() = S * t.k;
  d = t.beta * (t.v - Sk);
  S.noalias() += d * t.k.transpose();
  o.noalias() = S * t.q_scaled;
}

template <class Scalar>
Vector<Scalar> plain_head_update(Matrix<Scalar>& S, const HeadToken<Scalar>& t) {
  Vector<Scalar> o;
  plain_head_update(S, t, o);
  return o;
}

template <class Scalar>
Matrix<Scalar> plain_step(PlainState<Scalar>& state, const LayerParams<Scalar>& params,
                          const TokenInputs<Scalar>& token) {
  const Dims& d = params.dims;
  Matrix<Scalar> out = Matrix<Scalar>::Zero(d.B, d.HV * d.V);
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = token.slot[row];
    if (slot < 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv)
      out.row(row).segment(hv * d.V, d.V) =
          plain_head_update(state.at(slot, hv), prepare_head(params, token, row, hv)).transpose();
  }
  return out;
}

template <class Scalar>
std::vector<Matrix<Scalar>> plain_sequence(PlainState<Scalar>& state, const LayerParams<Scalar>& params,
                                           const std::vector<TokenInputs<Scalar>>& tokens) {
  std::vector<Matrix<Scalar>> outs;
  outs.reserve(tokens.size());
  for (const auto& t : tokens) outs.push_back(plain_step(state, params, t));
  return outs;
}

template class PlainState<float>;
template class PlainState<double>;
template Vector<float> plain_head_update<float>(Matrix<float>&, const HeadToken<float>&);
template Vector<double> plain_head_update<double>(Matrix<double>&, const HeadToken<double>&);
template void plain_head_update<float>(Matrix<float>&, const HeadToken<float>&, Vector<float>&);
template void plain_head_update<double>(Matrix<double>&, const HeadToken<double>&, Vector<double>&);
template Matrix<float> plain_step<float>(PlainState<float>&, const LayerParams<float>&, const TokenInputs<float>&);
template Matrix<double> plain_step<double>(PlainState<double>&, const LayerParams<double>&, const TokenInputs<double>&);
template std::vector<Matrix<float>> plain_sequence<float>(PlainState<float>&, const LayerParams<float>&,
                                                          const std::vector<TokenInputs<float>>&);
template std::vector<Matrix<double>> plain_sequence<double>(PlainState<double>&, const LayerParams<double>&,
                                                            const std::vector<TokenInputs<double>>&);

}  // namespace kda::reference
