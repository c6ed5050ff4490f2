#include "property_tests/gdn_reference_test_calls.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "cases/rng.hpp"

namespace kda::gdn::test {
namespace {

using rng::Counter;
using rng::Stream;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

}  // namespace

std::string to_string(const GdnConfig& c) {
  return fmt::format("B={} H={} HV={} K={} V={} L={} slots={} steps={} act={} state={} ring={} out={} l2={} ff={} "
                     "lb={} pad={} flush={} seed={}",
                     c.B, c.H, c.HV, c.K, c.V, c.L, c.slots, c.steps, name_of(c.act), name_of(c.state), name_of(c.ring),
                     name_of(c.out), c.l2norm, c.force_flush, c.lower_bound ? fmt::format("{}", *c.lower_bound) : "none",
                     c.pad, c.flush, c.seed);
}
void showValue(const GdnConfig& c, std::ostream& os) { os << to_string(c); }

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

void advance_cursors(GdnCall& t) {
  const auto slots = ints(t.ssm_state_indices);
  for (int64_t row = 0; row < t.c.B; ++row)
    if (slots[row] >= 0) t.write_pos.set_linear(row, flushes(t, row) ? 0.0 : t.write_pos.get_linear(row) + 1);
}

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

}  // namespace kda::gdn::test
