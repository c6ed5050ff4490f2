// THE KEY PROPERTY of gdn_replayssm (gdn-replayssm.md, "The key property", 1): one GDN step is
// one KDA ReplaySSM step (reference::replayssm_step) on the same call with every per-key gate
// equal to the scalar gate: the g and k rings exactly; out, the d ring and the checkpoint within
// the rounding bound derived below (kda_bound) with the kernel's rounding points, within one
// unit of each dtype with none; and with no rounding at all (double, no stores) the two
// per-head algorithms agree to 1e-12. The log shows the worst error / bound.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cases/rng.hpp"
#include "operators/gdn_replayssm/plain_recurrence.hpp"
#include "operators/gdn_replayssm/reference_step.hpp"
#include "property_tests/gdn_reference_test_calls.hpp"
#include "operators/gdn_replayssm/replay_head.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/replay_head.hpp"
#include "operators/kda_replayssm/reference_step.hpp"
#include "reference/tolerance.hpp"

namespace kda::gdn::test {
namespace {

using reference::Matrix;
using reference::Rounding;
using reference::Vector;
using rng::Counter;
using rng::Stream;
constexpr double kU32 = 0x1p-24;

double unit(ScalarType t) { return reference::unit_roundoff(t); }
// Absolute rounding error of a store in t's subnormal range (half its subnormal step).
double tiny(ScalarType t) { return unit(t) * reference::smallest_normal(t); }
double round_to(ScalarType t, double x) {
  HostTensor one(t, {1});
  one.set_linear(0, x);
  return one.get_linear(0);
}

// Bounds on |GDN step - KDA step| per element of out, d_cache and initial_state (logical
// row-major index), for the Kernel rounding points; 0 where the step writes nothing.
//
// DERIVATION. Both steps see the same stored inputs and compute bit-identical q_scaled, k,
// v, beta and g (the same float32 preparation, reference/layer_inputs.cpp; the test checks
// the g and k rings bitwise). Each is bounded against the exact (real-number) value of the
// same function of those float32 values, and |GDN - KDA| <= bound_GDN + bound_KDA, the same
// first-order worst-case form for both (u = 2^-24, u_o / u_r / u_s the unit roundoffs of
// out / rings / state, eta_t = u_t * smallest_normal(t) the absolute error of a rounding to t
// in its subnormal range, n = cursor, G = sum_j |g_j|, w_j = exp(total - prefix_j)):
//  - rebuild, per element [e, c]: each product term d_j[e] w_j k_j[c] goes through the same
//    roundings on both sides, the decay merely on the other factor: w_j from float32 prefix
//    sums (each off by <= (n-1) u G, their difference rounded: <= (2n-1) u G absolutely in the
//    exponent) and exp (<= 2 ulps = 4 u), the decayed factor's product (u), both operands
//    rounded to out's dtype (2 u_o, plus eta_o absolutely each), their product (u); the n + 1
//    terms (S0 exp(total) carries (n-1) u G + 4 u + u, within the same) summed in float32
//    (n u). So |dS| <= eps_r M + eta_o sum_j (|d_j[e]| + |k_j[c]|),
//    eps_r = 2 u_o + ((2n-1) G + n + 8) u, M = |S0| exp(total) + sum_j w_j |d_j| |k_j|^T.
//  - token (a = exp(g), within 4 u): S k and S q are K-term float32 sums (K u on |S| |k|);
//    decay multiply, exp, subtraction and beta add 7 u: with E = |dS| bound,
//      dd = beta (a E|k| + (K + 7) u a M|k| + 2 u |v|),
//      do = a E|q| + (K + 7) u a M|q| + dd |k.q| + (K + 3) u |d| |k|.|q|,
//      dS_flush = a E + 7 u a M + dd |k|^T + 2 u |d| |k|^T   (a S, d k^T and their sum),
//    with |d| <= beta (|v| + a M|k|) =: Dm.
//  - stores: each side rounds to the tensor's dtype (u_t relative, eta_t absolute).
//  - second order: every factor (1 + delta_i) with sum |delta_i| <= eps_total multiplies the
//    first-order bound by at most exp(eps_total).
// So, per element: out 2 do + 2 u_o (a M|q| + Dm |k|.|q|) + 2 eta_o; d 2 dd + 2 u_r Dm + 2 eta_r;
// checkpoint 2 dS_flush + 2 u_s (a M + Dm |k|^T) + 2 eta_s; each first-order part times
// exp(eps_total), plus 1e-38 for float32's own subnormal steps (2^-149 per operation).
struct KdaBound {
  std::vector<double> out, d, state;
};

KdaBound kda_bound(GdnCall& t) {
  const GdnConfig& c = t.c;
  const Dims& dm = t.dims;
  const StepArgs args = t.args();
  KdaBound bound{std::vector<double>(t.out.numel(), 0), std::vector<double>(t.d_cache.numel(), 0),
                 std::vector<double>(t.initial_state.numel(), 0)};
  const double uo = unit(c.out), ur = unit(c.ring), us = unit(c.state), u = kU32;
  const auto slots = ints(t.ssm_state_indices);
  const auto cursors = ints(t.write_pos);
  const double floor32 = 1e-38;
  for (int64_t row = 0; row < c.B; ++row) {
    const int64_t slot = slots[row], n = cursors[row];
    if (slot < 0) continue;
    const bool flush = flushes(t, row);
    for (int64_t hv = 0; hv < c.HV; ++hv) {
      const int64_t h = hv / (c.HV / c.H);
      const GdnHead head = gdn_head(args, dm, row, hv);
      Matrix<double> M(c.V, c.K), N = Matrix<double>::Zero(c.V, c.K);
      double total = 0, G = 0;
      for (int64_t j = 0; j < n; ++j) {
        total += t.g_cache.get({slot, hv, j});
        G += std::abs(t.g_cache.get({slot, hv, j}));
      }
      for (int64_t e = 0; e < c.V; ++e)
        for (int64_t k = 0; k < c.K; ++k) M(e, k) = std::abs(t.initial_state.get({slot, hv, e, k})) * std::exp(total);
      double prefix = 0;
      for (int64_t j = 0; j < n; ++j) {
        prefix += t.g_cache.get({slot, hv, j});
        const double w = std::exp(total - prefix);
        for (int64_t e = 0; e < c.V; ++e)
          for (int64_t k = 0; k < c.K; ++k) {
            const double dj = std::abs(t.d_cache.get({slot, hv, j, e})), kj = std::abs(t.k_cache.get({slot, h, j, k}));
            M(e, k) += w * dj * kj;
            N(e, k) += tiny(c.out) * (dj + kj);
          }
      }
      const double eps_r = n == 0 ? 0.0 : 2 * uo + ((2.0 * n - 1) * G + n + 8) * u;
      const double K = static_cast<double>(c.K);
      const double eps_total = eps_r + (K + 10) * u + 2 * std::max({uo, ur, us});
      const double second = std::exp(eps_total);
      const Matrix<double> E = (eps_r * M + N).array() + floor32;
      const double a = std::exp(head.g), beta = head.beta;
      const Vector<double> k_abs = head.k.cwiseAbs(), q_abs = head.q_scaled.cwiseAbs();
      const double kq = std::abs(head.k.dot(head.q_scaled)), kq_abs = k_abs.dot(q_abs);
      const Vector<double> Mk = M * k_abs, Mq = M * q_abs, Ek = E * k_abs, Eq = E * q_abs;
      const Vector<double> Dm = beta * (head.v.cwiseAbs() + a * Mk);
      const Vector<double> dd = beta * (a * Ek + (K + 7) * u * a * Mk + 2 * u * head.v.cwiseAbs());
      const Vector<double> dout = a * Eq + (K + 7) * u * a * Mq + dd * kq + (K + 3) * u * kq_abs * Dm;
      for (int64_t e = 0; e < c.V; ++e)
        bound.out[(row * c.HV + hv) * c.V + e] =
            second * (2 * dout(e) + 2 * uo * (a * Mq(e) + Dm(e) * kq_abs)) + 2 * tiny(c.out) + floor32;
      if (flush) {
        for (int64_t e = 0; e < c.V; ++e)
          for (int64_t k = 0; k < c.K; ++k) {
            const double dS = a * E(e, k) + 7 * u * a * M(e, k) + (dd(e) + 2 * u * Dm(e)) * k_abs(k);
            const double mag = a * M(e, k) + Dm(e) * k_abs(k);
            bound.state[((slot * c.HV + hv) * c.V + e) * c.K + k] =
                second * (2 * dS + 2 * us * mag) + 2 * tiny(c.state) + floor32;
          }
      } else {
        for (int64_t e = 0; e < c.V; ++e)
          bound.d[((slot * c.HV + hv) * c.L + n) * c.V + e] =
              second * (2 * dd(e) + 2 * ur * Dm(e)) + 2 * tiny(c.ring) + floor32;
      }
    }
  }
  return bound;
}

// |x - y| <= bound per element (bound 0: bitwise equal, NaN equal to NaN); returns the worst
// |x - y| / bound over the bounded elements, or a failure message.
struct ElementCheck {
  double worst_ratio = 0;
  std::string failure;
};
ElementCheck check_elements(const char* name, const HostTensor& x, const HostTensor& y, const std::vector<double>& bound) {
  ElementCheck r;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double a = x.get_linear(i), b = y.get_linear(i), diff = std::abs(a - b);
    const bool same = a == b || (std::isnan(a) && std::isnan(b));
    if (bound[i] == 0 ? !same : !(diff <= bound[i])) {
      r.failure = fmt::format("{}[{}]: GDN {:.9g}, KDA {:.9g}, |diff| {:.3e} > bound {:.3e}", name, i, a, b, diff, bound[i]);
      return r;
    }
    if (bound[i] > 0) r.worst_ratio = std::max(r.worst_ratio, diff / bound[i]);
  }
  return r;
}

struct Worst {
  double out = 0, d = 0, state = 0;
  int64_t steps = 0;
};

// One step of each on the same call. Returns a failure message, or "" (and folds the ratios).
std::string gdn_vs_kda(const GdnConfig& c, Rounding rounding, Worst& worst) {
  GdnCall g = make_call(c);
  StepTensors k = kda_call(g);
  const KdaBound kernel_bound = kda_bound(g);
  gdn_replayssm_step(g.args(), rounding);
  reference::replayssm_step(k.args(), rounding);

  for (int64_t i = 0; i < g.g_cache.numel(); ++i)
    for (int64_t ch = 0; ch < c.K; ++ch) {
      const double x = g.g_cache.get_linear(i), y = k.g_cache.get_linear(i * c.K + ch);
      if (!(x == y || (std::isnan(x) && std::isnan(y))))
        return fmt::format("g ring [{}] channel {}: GDN {:.9g}, KDA {:.9g}", i, ch, x, y);
    }
  for (int64_t i = 0; i < g.k_cache.numel(); ++i) {
    const double kda = k.k_cache.get_linear(i);
    // GDN's key record: KDA's float32 key stored at k_cache's dtype, bitwise (no rounding
    // through out's dtype: that is the 'triton' profile's, not the reference's).
    const double expected = round_to(c.ring, kda), x = g.k_cache.get_linear(i);
    if (!(x == expected || (std::isnan(x) && std::isnan(expected))))
      return fmt::format("k ring [{}]: GDN {:.9g}, expected {:.9g} (KDA's float32 key {:.9g})", i, x, expected, kda);
  }
  KdaBound bound = kernel_bound;
  if (rounding == Rounding::Off) {
    // No intermediate rounding: both compute in double and differ by double rounding only
    // (1e-12 relative covers it with room), so their stores differ by at most one unit of the
    // tensor's dtype: 2 u_t |y| + 2 eta_t (a rounding to nearest of two values that close).
    const auto off = [&](const HostTensor& y, std::vector<double>& b, ScalarType t) {
      for (int64_t i = 0; i < y.numel(); ++i)
        if (b[i] > 0) b[i] = (2 * unit(t) + 1e-12) * 1.01 * std::abs(y.get_linear(i)) + 2 * tiny(t) + 1e-300;
    };
    off(k.out, bound.out, c.out);
    off(k.d_cache, bound.d, c.ring);
    off(k.initial_state, bound.state, c.state);
  }
  const ElementCheck o = check_elements("out", g.out, k.out, bound.out);
  const ElementCheck d = check_elements("d_cache", g.d_cache, k.d_cache, bound.d);
  const ElementCheck s = check_elements("initial_state", g.initial_state, k.initial_state, bound.state);
  for (const ElementCheck* x : {&o, &d, &s})
    if (!x->failure.empty()) return x->failure;
  worst.out = std::max(worst.out, o.worst_ratio);
  worst.d = std::max(worst.d, d.worst_ratio);
  worst.state = std::max(worst.state, s.worst_ratio);
  ++worst.steps;
  return "";
}

TEST(GdnReplaySSMReference, OneStepEqualsKdaWithTheGateBroadcast) {
  Worst kernel, off;
  kda::testing::check_property("GDN step == KDA step, gate broadcast", kda::testing::case_count("KDA_REFERENCE_CASES", 300), [&] {
    const GdnConfig c = *gen_config(/*powers_of_two=*/true, 1).as("config");
    const std::string k = gdn_vs_kda(c, Rounding::Kernel, kernel);
    if (!k.empty()) RC_FAIL("kernel rounding: " + k);
    const std::string o = gdn_vs_kda(c, Rounding::Off, off);
    if (!o.empty()) RC_FAIL("rounding off: " + o);
  });
  std::printf("kernel rounding, %lld steps: worst |GDN - KDA| / derived bound: out %.3e, d ring %.3e, checkpoint %.3e\n",
              static_cast<long long>(kernel.steps), kernel.out, kernel.d, kernel.state);
  std::printf("rounding off, %lld steps: worst |GDN - KDA| / one unit of the dtype: out %.3e, d ring %.3e, checkpoint %.3e\n",
              static_cast<long long>(off.steps), off.out, off.d, off.state);
}

// The two per-head algorithms in double with no rounding at all (no tensor stores): GDN's
// (replay decay on d, current decay after the sums) and KDA's (reference/replay_head.hpp,
// decays on k and per channel) with the gate broadcast agree to 1e-12 relative.
TEST(GdnReplaySSMReference, ExactArithmeticAgreesWithKdaTo1e12) {
  double worst = 0;
  kda::testing::check_property("exact GDN head == exact KDA head", kda::testing::case_count("KDA_REFERENCE_CASES", 300), [&] {
    const int64_t K = draw(rc::gen::inRange<int64_t>(1, 70)), V = draw(rc::gen::inRange<int64_t>(1, 70)),
                  n = draw(rc::gen::inRange<int64_t>(0, 16));
    const Counter r(draw(rc::gen::inRange<uint64_t>(1, 1u << 30)), Stream::State);
    uint64_t next = 0;
    const auto draw = [&](int64_t rows, int64_t cols, double lo, double hi) {
      Matrix<double> m(rows, cols);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) m(i, j) = r.uniform(next++, lo, hi);
      return m;
    };
    const Matrix<double> S0 = draw(V, K, -1, 1), D = draw(n, V, -0.5, 0.5), Kr = draw(n, K, -0.3, 0.3);
    const Vector<double> G = draw(n, 1, -1, 0).col(0);
    reference::HeadToken<double> t;
    t.q_scaled = draw(K, 1, -1, 1).col(0);
    t.k = draw(K, 1, -0.3, 0.3).col(0);
    t.v = draw(V, 1, -1, 1).col(0);
    t.beta = r.uniform(next++);
    const double g = r.uniform(next++, -3, 0);
    t.g = Vector<double>::Constant(K, g);
    const auto none = [](Matrix<double>&) {};
    Vector<double> o1, d1, o2, d2;
    Matrix<double> S1 = rebuild_state(S0, D, Kr, G, n, none);
    replay_token(S1, t, g, o1, d1);
    S1 += d1 * t.k.transpose();
    Matrix<double> S2 = reference::rebuild_state(S0, D, Kr, Matrix<double>(G.replicate(1, K)), n, none);
    reference::replay_token(S2, t, o2, d2);
    S2 += d2 * t.k.transpose();
    const double e = std::max({(o1 - o2).norm() / o2.norm(), (d1 - d2).norm() / d2.norm(), (S1 - S2).norm() / S2.norm()});
    RC_ASSERT(e <= 1e-12);
    worst = std::max(worst, e);
  });
  std::printf("worst relative difference (normwise) of out, d and state: %.3e (allowed 1e-12)\n", worst);
}

}  // namespace
}  // namespace kda::gdn::test
