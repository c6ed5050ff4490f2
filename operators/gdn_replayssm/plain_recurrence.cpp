#include "operators/gdn_replayssm/plain_recurrence.hpp"

#include <cmath>

#include "reference/tensor_io.hpp"

namespace kda::gdn {
namespace {

namespace io = reference::io;
using reference::Matrix;
using reference::Vector;

// Element (i0, i1) of a tensor of 1 or 2 dims, as double.
double element(const DLTensor& t, int64_t i0, int64_t i1 = 0) {
  Matrix<double> m;
  io::gather(t, {i0 * io::stride_of(t, 0) + (t.ndim > 1 ? i1 * io::stride_of(t, 1) : 0), 1, 0, 1, 1}, m);
  return m(0, 0);
}

// The [rows, cols] block at (i0, i1) of a 4-D tensor [., ., rows, cols].
Matrix<double> block(const DLTensor& t, int64_t i0, int64_t i1, int64_t rows, int64_t cols) {
  Matrix<double> m;
  io::gather(t, {i0 * io::stride_of(t, 0) + i1 * io::stride_of(t, 1), rows, io::stride_of(t, 2), cols, io::stride_of(t, 3)},
             m);
  return m;
}

}  // namespace

GdnHead gdn_head(const StepArgs& args, const Dims& d, int64_t row, int64_t hv, bool beta_through_b) {
  const int64_t h = hv / (d.HV / d.H);
  Matrix<double> x;
  io::gather(*args.mixed_qkv, {row * io::stride_of(*args.mixed_qkv, 0), 1, 0, 2 * d.H * d.K + d.HV * d.V, 1}, x);
  GdnHead t;
  Vector<double> q = x.row(0).segment(h * d.K, d.K).transpose();
  t.k = x.row(0).segment(d.H * d.K + h * d.K, d.K).transpose();
  t.v = x.row(0).segment(2 * d.H * d.K + hv * d.V, d.V).transpose();
  if (args.use_qk_l2norm_in_kernel) {
    q /= std::sqrt(q.squaredNorm() + 1e-6);
    t.k /= std::sqrt(t.k.squaredNorm() + 1e-6);
  }
  t.q_scaled = q * args.scale;
  const double gate_x = element(*args.a, row, hv) + element(*args.dt_bias, hv);
  const double A = std::exp(element(*args.A_log, hv));
  if (args.lower_bound)
    t.g = *args.lower_bound / (1 + std::exp(-A * gate_x));
  else
    t.g = -A * (gate_x <= 20 ? std::log1p(std::exp(gate_x)) : gate_x);
  const float b = static_cast<float>(element(*args.b, row, hv));
  const float beta = 1.0f / (1.0f + std::exp(-b));
  t.beta = beta_through_b ? io::round_through(*scalar_type_of(args.b->dtype), beta) : beta;
  return t;
}

reference::HeadToken<double> as_head_token(const GdnHead& h) {
  return {h.q_scaled, h.k, h.v, Vector<double>::Constant(h.k.size(), h.g), h.beta};
}

Matrix<double> gdn_rebuilt_state(const StepArgs& args, const Dims& d, int64_t slot, int64_t hv, int64_t cursor) {
  const Matrix<double> D = block(*args.d_cache, slot, hv, cursor, d.V);
  const Matrix<double> Kr = block(*args.k_cache, slot, hv / (d.HV / d.H), cursor, d.K);
  const DLTensor& gc = *args.g_cache;  // [slots, HV, L]
  Matrix<double> G;
  io::gather(gc, {slot * io::stride_of(gc, 0) + hv * io::stride_of(gc, 1), 1, 0, cursor, io::stride_of(gc, 2)}, G);
  const double total = G.sum();
  Matrix<double> S = block(*args.initial_state, slot, hv, d.V, d.K) * std::exp(total);
  double prefix = 0;
  for (int64_t j = 0; j < cursor; ++j) {
    prefix += G(0, j);
    S += std::exp(total - prefix) * D.row(j).transpose() * Kr.row(j);
  }
  return S;
}

Matrix<double> plain_gdn_recurrence(reference::PlainState<double>& state, const StepArgs& args, const Dims& d,
                                    bool beta_through_b) {
  Matrix<double> out = Matrix<double>::Zero(d.B, d.HV * d.V);
  const auto slots = io::read_indices(*args.ssm_state_indices);
  for (int64_t row = 0; row < d.B; ++row) {
    if (slots[row] < 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      const GdnHead t = gdn_head(args, d, row, hv, beta_through_b);
      Matrix<double>& S = state.at(slots[row], hv);
      S *= std::exp(t.g);
      const Vector<double> delta = t.beta * (t.v - S * t.k);
      S += delta * t.k.transpose();
      out.row(row).segment(hv * d.V, d.V) = (S * t.q_scaled).transpose();
    }
  }
  return out;
}

}  // namespace kda::gdn
