// THE KEY PROPERTY of gdn_replayssm (gdn-replayssm.md, "The key property"), on its CPU reference:
// (1) one GDN step is one KDA ReplaySSM step (reference::replayssm_step) on the same call with
//     every per-key gate equal to the scalar gate: g and k rings exactly, out, d ring and
//     checkpoint within the rounding bound derived below (KdaBound); with no rounding the two
//     algorithms agree to 1e-12;
// (2) a rollout of GDN steps (cursor protocol, forced flushes, padding rows, rings filled at the
//     start) gives the plain float64 GDN recurrence's outputs at every token and its state at
//     every flush, within the project's tolerance model (reference/tolerance.hpp, ErrorBudget).
// The log shows the worst error / bound of each.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "cases/rng.hpp"
#include "contract/step_tensors.hpp"
#include "operators/gdn_replayssm/plain_recurrence.hpp"
#include "operators/gdn_replayssm/reference_step.hpp"
#include "operators/gdn_replayssm/replay_head.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/compare.hpp"
#include "reference/replay_head.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/tolerance.hpp"
#include "reference/truth_tracker.hpp"

namespace kda::gdn {
namespace {

using reference::Matrix;
using reference::Rounding;
using reference::Vector;
using rng::Counter;
using rng::Stream;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kU32 = 0x1p-24;

// One random GDN call (and, for rollouts, its tokens).
struct GdnConfig {
  int64_t B = 1, H = 1, HV = 1, K = 16, V = 16, L = 4, slots = 1, steps = 1;
  ScalarType act = ScalarType::Float32, state = ScalarType::Float32, ring = ScalarType::Float32,
             out = ScalarType::Float32;
  bool l2norm = true, force_flush = true;
  std::optional<double> lower_bound;
  double pad = 0.2, flush = 0.1;
  uint64_t seed = 1;
};
std::string to_string(const GdnConfig& c) {
  return fmt::format("B={} H={} HV={} K={} V={} L={} slots={} steps={} act={} state={} ring={} out={} l2={} ff={} "
                     "lb={} pad={} flush={} seed={}",
                     c.B, c.H, c.HV, c.K, c.V, c.L, c.slots, c.steps, name_of(c.act), name_of(c.state), name_of(c.ring),
                     name_of(c.out), c.l2norm, c.force_flush, c.lower_bound ? fmt::format("{}", *c.lower_bound) : "none",
                     c.pad, c.flush, c.seed);
}
void showValue(const GdnConfig& c, std::ostream& os) { os << to_string(c); }

// powers_of_two: K and V as kda_replayssm's contract takes them (V14); else any (24, 40, 48).
// Every draw at RapidCheck's nominal size, so the whole range is drawn from the first case on
// (as property_tests/rc_chooser.hpp does); a failure still shrinks towards small values.
template <class T>
T draw(rc::Gen<T> g) {
  return *rc::gen::resize(100, std::move(g));
}

rc::Gen<GdnConfig> gen_config(bool powers_of_two, int64_t max_steps) {
  return rc::gen::exec([=] {
    GdnConfig c;
    const std::vector<ScalarType> floats{ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
    const std::vector<int64_t> sizes = powers_of_two ? std::vector<int64_t>{16, 32, 64} : std::vector<int64_t>{16, 24, 32, 40, 48, 64};
    c.H = draw(rc::gen::inRange<int64_t>(1, 3));
    c.HV = c.H * draw(rc::gen::element<int64_t>(1, 2, 4));
    c.K = draw(rc::gen::elementOf(sizes));
    c.V = draw(rc::gen::elementOf(sizes));
    c.L = draw(rc::gen::element<int64_t>(1, 4, 8, 16));
    c.B = draw(rc::gen::inRange<int64_t>(1, 5));
    c.slots = c.B + draw(rc::gen::inRange<int64_t>(0, 3));
    c.steps = draw(rc::gen::inRange<int64_t>(1, max_steps + 1));
    c.act = draw(rc::gen::elementOf(floats));
    c.state = draw(rc::gen::elementOf(floats));
    c.ring = draw(rc::gen::elementOf(floats));
    c.out = draw(rc::gen::elementOf(floats));
    c.l2norm = draw(rc::gen::arbitrary<bool>());
    c.force_flush = draw(rc::gen::arbitrary<bool>());
    if (draw(rc::gen::inRange(0, 3)) == 0) c.lower_bound = -static_cast<double>(draw(rc::gen::inRange(1, 9)));
    c.pad = draw(rc::gen::element(0.0, 0.25));
    c.flush = draw(rc::gen::element(0.0, 0.1, 0.3));
    c.seed = draw(rc::gen::inRange<uint64_t>(1, 1u << 30));
    return c;
  });
}

// The call's tensors in gdn_replayssm's shapes. Every element a step must not read holds NaN:
// ring records at and past each row's cursor, the slots no row names, out.
struct GdnCall : StepTensors {
  GdnConfig c;
  Dims dims;
};

void fill(HostTensor& t, double v) {
  for (int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, v);
}

// A key. With l2norm the step normalizes the token's key (any size will do) and a ring holds
// normalized keys; without, keys of norm below sqrt(2) (beta ||k||^2 < 2 keeps the recurrence
// contracting: tolerance.cpp, fact (b)).
void write_key(const GdnConfig& c, const Counter& r, uint64_t base, HostTensor& t, int64_t offset, bool ring) {
  std::vector<double> k(static_cast<std::size_t>(c.K));
  double norm = 0;
  for (int64_t i = 0; i < c.K; ++i) norm += (k[i] = r.uniform(base + i, -1, 1)) * k[i];
  const double size = !c.l2norm ? 0.8 * std::sqrt(3.0 / static_cast<double>(c.K)) : ring ? 1 / std::sqrt(norm) : 1.0;
  for (int64_t i = 0; i < c.K; ++i) t.set_linear(offset + i, size * k[i]);
}

void fill_token(GdnCall& t, int64_t token) {
  const GdnConfig& c = t.c;
  const Counter qkv(c.seed, Stream::Qkv, token), gate(c.seed, Stream::GateLogits, token),
      beta(c.seed, Stream::BetaLogits, token), flush(c.seed, Stream::Flush, token);
  const int64_t width = 2 * c.H * c.K + c.HV * c.V;
  for (int64_t row = 0; row < c.B; ++row) {
    const int64_t base = row * width;
    for (int64_t i = 0; i < c.H * c.K; ++i) t.mixed_qkv.set_linear(base + i, qkv.normal(base + i));
    for (int64_t h = 0; h < c.H; ++h)
      write_key(c, qkv, base + c.H * c.K + h * c.K, t.mixed_qkv, base + c.H * c.K + h * c.K, false);
    for (int64_t i = 2 * c.H * c.K; i < width; ++i) t.mixed_qkv.set_linear(base + i, qkv.normal(base + i));
    for (int64_t hv = 0; hv < c.HV; ++hv) {
      // One gate logit in eight around softplus's threshold 20 (both branches, strong decays).
      const int64_t i = row * c.HV + hv;
      t.a.set_linear(i, gate.bernoulli(2 * i + 1, 0.125) ? gate.uniform(i, 17, 23) : gate.uniform(i, -4, 2));
      t.b.set_linear(i, beta.uniform(i, -3, 3));
    }
    if (t.force_flush) t.force_flush->set_linear(row, flush.bernoulli(row, c.flush) ? 1 : 0);
  }
}

GdnCall make_call(const GdnConfig& c) {
  GdnCall t;
  t.c = c;
  t.dims = {c.B, c.H, c.HV, c.K, c.V, c.L, c.slots};
  t.mixed_qkv = HostTensor(c.act, {c.B, 2 * c.H * c.K + c.HV * c.V});
  t.a = HostTensor(c.act, {c.B, c.HV});
  t.b = HostTensor(c.act, {c.B, c.HV});
  t.A_log = HostTensor(c.act, {c.HV});
  t.dt_bias = HostTensor(c.act, {c.HV});
  t.initial_state = HostTensor(c.state, {c.slots, c.HV, c.V, c.K});
  t.d_cache = HostTensor(c.ring, {c.slots, c.HV, c.L, c.V});
  t.k_cache = HostTensor(c.ring, {c.slots, c.H, c.L, c.K});
  t.g_cache = HostTensor(ScalarType::Float32, {c.slots, c.HV, c.L});
  t.out = HostTensor(c.out, {c.B, 1, c.HV, c.V});
  t.ssm_state_indices = HostTensor(ScalarType::Int32, {c.B});
  t.write_pos = HostTensor(ScalarType::Int32, {c.B});
  if (c.force_flush) t.force_flush = HostTensor(ScalarType::Int32, {c.B});
  t.scale = 1 / std::sqrt(static_cast<double>(c.K));
  t.use_qk_l2norm_in_kernel = c.l2norm;
  t.lower_bound = c.lower_bound;
  for (HostTensor* x : {&t.initial_state, &t.d_cache, &t.k_cache, &t.g_cache, &t.out}) fill(*x, kNaN);

  const Counter params(c.seed, Stream::ALog), bias(c.seed, Stream::DtBias), order(c.seed, Stream::SlotOrder),
      padding(c.seed, Stream::Padding), cursor(c.seed, Stream::Cursor), state(c.seed, Stream::State),
      d_ring(c.seed, Stream::DRing), k_ring(c.seed, Stream::KRing), g_ring(c.seed, Stream::GRing);
  for (int64_t hv = 0; hv < c.HV; ++hv) {
    t.A_log.set_linear(hv, params.uniform(hv, -2, 1));
    t.dt_bias.set_linear(hv, bias.uniform(hv, -1, 1));
  }
  std::vector<int64_t> slots(c.slots);
  for (int64_t s = 0; s < c.slots; ++s) slots[s] = s;
  for (int64_t s = c.slots - 1; s > 0; --s) std::swap(slots[s], slots[order.below(s, s + 1)]);
  for (int64_t row = 0; row < c.B; ++row) {
    const bool pad = padding.bernoulli(row, c.pad);
    const int64_t slot = pad ? -1 : slots[row], n = pad ? 0 : static_cast<int64_t>(cursor.below(row, c.L));
    t.ssm_state_indices.set_linear(row, static_cast<double>(slot));
    t.write_pos.set_linear(row, static_cast<double>(n));
    if (pad) continue;
    for (int64_t hv = 0; hv < c.HV; ++hv) {
      const int64_t s0 = (slot * c.HV + hv) * c.V * c.K;
      for (int64_t i = 0; i < c.V * c.K; ++i) t.initial_state.set_linear(s0 + i, state.uniform(s0 + i, -1, 1));
      for (int64_t j = 0; j < n; ++j) {
        const int64_t d0 = ((slot * c.HV + hv) * c.L + j) * c.V;
        for (int64_t e = 0; e < c.V; ++e) t.d_cache.set_linear(d0 + e, d_ring.uniform(d0 + e, -0.5, 0.5));
        t.g_cache.set_linear((slot * c.HV + hv) * c.L + j, g_ring.uniform((slot * c.HV + hv) * c.L + j, -1, 0));
      }
    }
    for (int64_t h = 0; h < c.H; ++h)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k0 = ((slot * c.H + h) * c.L + j) * c.K;
        write_key(c, k_ring, k0, t.k_cache, k0, true);
      }
  }
  fill_token(t, 0);
  return t;
}

std::vector<int64_t> ints(const HostTensor& t) {
  std::vector<int64_t> v(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(t.get_linear(static_cast<int64_t>(i)));
  return v;
}

bool flushes(const GdnCall& t, int64_t row) {
  return t.write_pos.get_linear(row) == static_cast<double>(t.c.L - 1) ||
         (t.force_flush && t.force_flush->get_linear(row) != 0);
}

// The caller's protocol: 0 where the row flushed, else write_pos + 1.
void advance_cursors(GdnCall& t) {
  const auto slots = ints(t.ssm_state_indices);
  for (int64_t row = 0; row < t.c.B; ++row)
    if (slots[row] >= 0) t.write_pos.set_linear(row, flushes(t, row) ? 0.0 : t.write_pos.get_linear(row) + 1);
}

// The same call in kda_replayssm's shapes, every per-key gate equal to the scalar gate:
// a_kda[n, hv*K + c] = a[n, hv], dt_kda[hv*K + c] = dt_bias[hv], g_kda[s, hv, j, c] = g[s, hv, j].
// Its key ring is float32 holding the same values, so the keys it stores are the token's
// float32 keys, which the test rounds as GDN's step must.
StepTensors kda_call(const GdnCall& g) {
  const GdnConfig& c = g.c;
  StepTensors k = g;
  k.a = HostTensor(c.act, {c.B, c.HV * c.K});
  k.dt_bias = HostTensor(c.act, {c.HV * c.K});
  k.g_cache = HostTensor(ScalarType::Float32, {c.slots, c.HV, c.L, c.K});
  k.k_cache = HostTensor(ScalarType::Float32, {c.slots, c.H, c.L, c.K});
  for (int64_t i = 0; i < k.a.numel(); ++i) k.a.set_linear(i, g.a.get_linear(i / c.K));
  for (int64_t i = 0; i < k.dt_bias.numel(); ++i) k.dt_bias.set_linear(i, g.dt_bias.get_linear(i / c.K));
  for (int64_t i = 0; i < k.g_cache.numel(); ++i) k.g_cache.set_linear(i, g.g_cache.get_linear(i / c.K));
  for (int64_t i = 0; i < k.k_cache.numel(); ++i) k.k_cache.set_linear(i, g.k_cache.get_linear(i));
  return k;
}

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
  // Which key records the step writes: (slot, h, cursor) of the rows that append.
  std::set<int64_t> written_keys;
  const auto slots = ints(g.ssm_state_indices), cursors = ints(g.write_pos);
  for (int64_t row = 0; row < c.B; ++row)
    if (slots[row] >= 0 && !flushes(g, row))
      for (int64_t h = 0; h < c.H; ++h) written_keys.insert(((slots[row] * c.H + h) * c.L + cursors[row]) * c.K);
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
    // GDN's key: the float32 key through out's dtype (Kernel), then k_cache's.
    const bool written = written_keys.count(i - i % c.K) > 0;
    const double through_out = written && rounding == Rounding::Kernel ? round_to(c.out, kda) : kda;
    const double expected = round_to(c.ring, through_out), x = g.k_cache.get_linear(i);
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

// The rollout, judged against the plain float64 GDN recurrence with the running error budget
// of reference/tolerance.hpp: GDN is KDA with the gate broadcast over K, so the KDA model's
// per-column terms apply as they are (the operand roundings bound each product term by the
// same u_p whichever factor carries the decay), with the Triton key rounding (keys through
// out's dtype where that differs from the ring's) as key_extra. Also: padding rows output
// exact zeros and nothing a step may not write changes (slots no row names stay NaN).
struct RolloutWorst {
  reference::Comparison out, state;
  int64_t rollouts = 0, tokens = 0, flushes = 0;
};

reference::RoundingRates gdn_rates(const GdnConfig& c) {
  CaseConfig k;
  k.K = c.K;
  k.V = c.V;
  k.L = c.L;
  k.state_dtype = c.state;
  k.ring_dtype = c.ring;
  k.out_dtype = c.out;
  reference::RoundingRates r = reference::rounding_rates(k);
  if (c.L > 1 && c.out != ScalarType::Float32 && c.out != c.ring) r.key_extra = r.out;
  return r;
}

Matrix<double> ring_block(const HostTensor& t, int64_t slot, int64_t head, int64_t n, int64_t width) {
  Matrix<double> m(n, width);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < width; ++i) m(j, i) = t.get({slot, head, j, i});
  return m;
}

std::string rollout(const GdnConfig& c, Rounding rounding, RolloutWorst& worst) {
  GdnCall t = make_call(c);
  const Dims& dm = t.dims;
  const auto slots = ints(t.ssm_state_indices);
  reference::PlainState<double> truth(dm);
  reference::ErrorBudget budget(gdn_rates(c), dm);
  {
    const StepArgs args = t.args();
    const auto cursors = ints(t.write_pos);
    for (int64_t row = 0; row < c.B; ++row) {
      if (slots[row] < 0) continue;
      const int64_t s = slots[row], n = cursors[row];
      for (int64_t hv = 0; hv < c.HV; ++hv) {
        truth.at(s, hv) = gdn_rebuilt_state(args, dm, s, hv, n);
        Matrix<double> G(n, c.K);
        for (int64_t j = 0; j < n; ++j) G.row(j).setConstant(t.g_cache.get({s, hv, j}));
        budget.start(s, hv, reference::read_checkpoint(t.initial_state.dl(), dm, s, hv),
                     ring_block(t.d_cache, s, hv, n, c.V), ring_block(t.k_cache, s, hv / (c.HV / c.H), n, c.K), G, n);
      }
    }
  }
  reference::Comparison outs, states;
  for (int64_t token = 0; token < c.steps; ++token) {
    if (token > 0) fill_token(t, token);
    const StepArgs args = t.args();
    std::vector<GdnHead> heads;
    std::vector<Matrix<double>> before;
    for (int64_t row = 0; row < c.B; ++row)
      for (int64_t hv = 0; hv < c.HV && slots[row] >= 0; ++hv) {
        heads.push_back(gdn_head(args, dm, row, hv));
        before.push_back(truth.at(slots[row], hv));
      }
    const Matrix<double> expected = plain_gdn_recurrence(truth, args, dm);
    gdn_replayssm_step(args, rounding);
    const Matrix<double> out = reference::read_out(t.out.dl(), dm);
    std::size_t head = 0;
    for (int64_t row = 0; row < c.B; ++row) {
      const int64_t s = slots[row];
      const bool flush = s >= 0 && flushes(t, row);
      worst.flushes += flush;
      for (int64_t hv = 0; hv < c.HV; ++hv) {
        const std::string where = fmt::format("token {} row {} slot {} hv {}", token, row, s, hv);
        const std::span<const double> e(expected.row(row).data() + hv * c.V, c.V), a(out.row(row).data() + hv * c.V, c.V);
        if (s < 0) {
          if (std::any_of(a.begin(), a.end(), [](double x) { return x != 0; }))
            return fmt::format("{}: a padding row's output is not zero", where);
          continue;
        }
        const GdnHead& h = heads[head];
        const Matrix<double>& S = truth.at(s, hv);
        const auto b = budget.token(s, hv, before[head], as_head_token(h), S, flush);
        ++head;
        const double floor = reference::output_floor(S.norm(), h.q_scaled.norm(), c.K, c.V, c.out);
        reference::Comparison oc = reference::compare(e, a, c.V, b.output, {&floor, 1});
        oc.where = where;
        outs.merge(oc);
        if (flush) {
          const Matrix<double> actual = reference::read_checkpoint(t.initial_state.dl(), dm, s, hv);
          const double sf = reference::state_floor(c.V, c.K, c.state);
          const std::span<const double> se(S.data(), static_cast<std::size_t>(S.size())),
              sa(actual.data(), static_cast<std::size_t>(actual.size()));
          reference::Comparison sc = reference::compare(se, sa, c.V * c.K, b.state, {&sf, 1});
          sc.where = where + " (flush)";
          states.merge(sc);
        }
      }
    }
    if (!outs.pass || !states.pass) return fmt::format("outputs: {}; states: {}", outs.describe(), states.describe());
    advance_cursors(t);
  }
  // The slots no row names were never written.
  std::set<int64_t> named(slots.begin(), slots.end());
  for (const HostTensor* x : {&t.initial_state, &t.d_cache, &t.k_cache, &t.g_cache}) {
    const int64_t per_slot = x->numel() / c.slots;
    for (int64_t i = 0; i < x->numel(); ++i)
      if (!named.count(i / per_slot) && !std::isnan(x->get_linear(i)))
        return fmt::format("element {} of slot {}, named by no row, was written", i, i / per_slot);
  }
  worst.out.merge(outs);
  worst.state.merge(states);
  ++worst.rollouts;
  worst.tokens += c.steps;
  return "";
}

std::string dtype_set(const GdnConfig& c) {
  return fmt::format("act={:<8} state={:<8} ring={:<8} out={:<8}", name_of(c.act), name_of(c.state), name_of(c.ring),
                     name_of(c.out));
}

TEST(GdnReplaySSMReference, RolloutEqualsThePlainGdnRecurrence) {
  std::map<std::string, RolloutWorst> kernel, off;
  kda::testing::check_property("GDN rollout == plain GDN recurrence", kda::testing::case_count("KDA_REFERENCE_CASES", 200), [&] {
    const GdnConfig c = *gen_config(/*powers_of_two=*/false, 24).as("config");
    const std::string k = rollout(c, Rounding::Kernel, kernel[dtype_set(c)]);
    if (!k.empty()) RC_FAIL("kernel rounding: " + k);
    const std::string o = rollout(c, Rounding::Off, off[dtype_set(c)]);
    if (!o.empty()) RC_FAIL("rounding off: " + o);
  });
  const auto print = [](const char* title, const std::map<std::string, RolloutWorst>& by_set) {
    std::printf("%s vs the plain float64 GDN recurrence, per dtype set (worst error / bound):\n", title);
    RolloutWorst all;
    for (const auto& [set, w] : by_set) {
      std::printf("  %s %3lld rollouts %4lld tokens %4lld flushes  out %.3e / %.3e = %.3f  state %.3e / %.3e = %.3f\n",
                  set.c_str(), static_cast<long long>(w.rollouts), static_cast<long long>(w.tokens),
                  static_cast<long long>(w.flushes), w.out.worst_error, w.out.tolerance, w.out.blocks ? w.out.ratio() : 0.0,
                  w.state.worst_error, w.state.tolerance, w.state.blocks ? w.state.ratio() : 0.0);
      all.out.merge(w.out);
      all.state.merge(w.state);
    }
    std::printf("  all: outputs: %s\n  all: states: %s\n", all.out.describe().c_str(), all.state.describe().c_str());
    return all.state.blocks;
  };
  print("kernel rounding", kernel);
  EXPECT_GT(print("rounding off", off), 0);  // flushes were judged
}

}  // namespace
}  // namespace kda::gdn
