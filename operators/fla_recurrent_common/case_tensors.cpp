#include "operators/fla_recurrent_common/case_tensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "cases/case_values.hpp"
#include "cases/rng.hpp"

namespace kda::engine {
namespace {

using rng::Counter;
using rng::Stream;

// A stream of its own for the operator's keys (far from the shared streams' numbers).
constexpr uint64_t kKeysStream = 0xF1A0;
// The gap between a strided pool's slots, in elements: odd, so no slot is aligned as in a compact pool.
constexpr int64_t kPoolGap = 257;

void poison(HostTensor& t) { std::memset(t.storage().data(), 0xFF, t.storage().size()); }

// A key (or query) of K normals: L2-normalized by the kernel when asked, else of norm ~1 and at
// most 1.25 (beta ||k||^2 < 2: the delta rule never amplifies), as the other operators' cases.
void head_vector(const CaseConfig& c, const Counter& r, uint64_t base, double magnitude, bool key, std::vector<double>& x) {
  double ss = 0;
  for (int64_t i = 0; i < c.K; ++i) x[i] = r.normal(base + i), ss += x[i] * x[i];
  const double divisor =
      c.l2norm ? 1.0 : key ? std::max(std::sqrt(static_cast<double>(c.K)), std::sqrt(ss) / 1.25) : std::sqrt(static_cast<double>(c.K));
  for (int64_t i = 0; i < c.K; ++i) x[i] = (key && !c.l2norm ? 1.0 : magnitude) * x[i] / divisor;
}

}  // namespace

CaseConfig fit_fla_case(CaseConfig c, FlaGate gate) {
  c.L = 1;
  c.a_3d = c.dt_bias_2d = false;
  c.gate_per_head = gate == FlaGate::PerHead;
  if (c.gate_per_head) c.lower_bound.reset();  // fla's Gated DeltaNet kernel has no bounded gate
  c.force_flush = c.random_cursors = false;
  c.flush_prob = 0;
  c.circular = c.prefix_gates = c.predecayed_keys = false;  // no ring
  c.ring_dtype = ScalarType::BFloat16;  // the config line's default: its line leaves the ring out
  if (c.tokens == 0) {
    const Counter keys(c.seed, static_cast<Stream>(kKeysStream));
    c.tokens = keys.bernoulli(0, 0.5) ? 1 : 2 + static_cast<int64_t>(keys.below(1, 3));
    c.indices_2d = c.tokens > 1 || keys.bernoulli(2, 0.25);
    c.accepted = keys.bernoulli(3, 0.5);
    c.v_first = keys.bernoulli(4, 0.5);
    c.gate_in_kernel = keys.bernoulli(5, 0.5);
    c.beta_sigmoid = keys.bernoulli(6, 0.5);
    c.zero_pool = keys.bernoulli(7, 0.25);
  }
  if (c.tokens > 1) c.indices_2d = true;  // a [B] index tensor serves one token
  if (!c.indices_2d) c.accepted = false;  // num_accepted_tokens picks among a row's T indices
  c.slots = std::max(c.slots, c.B * (c.indices_2d ? c.tokens : 1));
  return c;
}

CaseTensors materialize_fla_case(const CaseConfig& c) {
  if (!is_valid_config(c) || c.tokens < 1) throw std::invalid_argument("materialize: invalid case config: " + to_string(c));
  const int64_t B = c.B, T = c.tokens, H = c.H, HV = c.HV, K = c.K, V = c.V, N = c.slots;
  const int64_t per_row = c.indices_2d ? T : 1;
  if (N < B * per_row) throw std::invalid_argument("materialize: fewer slots than the live rows' indices: " + to_string(c));
  CaseTensors t;
  t.config = c;
  t.use_qk_l2norm_in_kernel = c.l2norm;
  t.lower_bound = c.lower_bound;
  t.use_gate_in_kernel = c.gate_in_kernel;
  t.use_beta_sigmoid_in_kernel = c.beta_sigmoid;
  t.state_v_first = c.v_first;
  t.scale = values::query_scale(c);
  t.q = HostTensor(c.act_dtype, {B, T, H, K});
  t.k = HostTensor(c.act_dtype, {B, T, H, K});
  t.v = HostTensor(c.act_dtype, {B, T, HV, V});
  const int64_t G = c.gate_per_head ? 1 : K;  // gates per value head
  // With the gate in the kernel, g is the raw gate projection, in the activation dtype as a model
  // computes it (FlashInfer's and SGLang's CuTe-DSL decodes take nothing else); the log-decay
  // given precomputed is float32, as fla's gate function returns it.
  const ScalarType g_dtype = c.gate_in_kernel ? c.act_dtype : ScalarType::Float32;
  t.g = c.gate_per_head ? HostTensor(g_dtype, {B, T, HV}) : HostTensor(g_dtype, {B, T, HV, K});
  t.beta = HostTensor(c.act_dtype, {B, T, HV});
  t.A_log = HostTensor(c.act_dtype, {HV});
  t.dt_bias = HostTensor(c.act_dtype, {HV * G});
  const std::vector<int64_t> shape = c.v_first ? std::vector<int64_t>{N, HV, V, K} : std::vector<int64_t>{N, HV, K, V};
  t.initial_state = c.envelope ? HostTensor(c.state_dtype, shape, {HV * K * V + kPoolGap, K * V, shape[3], 1})
                               : HostTensor(c.state_dtype, shape);
  t.out = HostTensor(c.out_dtype, {B, T, HV, V});
  t.ssm_state_indices = c.indices_2d ? HostTensor(c.index_dtype, {B, T}) : HostTensor(c.index_dtype, {B});
  if (c.accepted) t.num_accepted_tokens = HostTensor(ScalarType::Int32, {B});
  for (HostTensor* p : {&*t.q, &*t.k, &*t.v, &*t.g, &*t.beta, &t.initial_state, &t.out}) poison(*p);
  for (int64_t hv = 0; hv < HV; ++hv) t.A_log.set_linear(hv, values::a_log(c, hv));
  for (int64_t e = 0; e < HV * G; ++e) t.dt_bias.set_linear(e, values::dt_bias(c, e));

  // Slots: a seeded permutation, each live row the next `per_row`; with pad_ends the rows at
  // both ends are padding and the last slot is named by none.
  std::vector<int64_t> order(N);
  std::iota(order.begin(), order.end(), 0);
  const Counter so(c.seed, Stream::SlotOrder);
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return so.bits(x) < so.bits(y); });
  if (c.pad_ends) std::stable_partition(order.begin(), order.end(), [&](int64_t s) { return s != N - 1; });
  const Counter pad(c.seed, Stream::Padding), st(c.seed, Stream::State);
  const double sigma = c.values == ValueMode::Adversarial ? 1.0 : 0.3;
  int64_t next = 0;
  for (int64_t row = 0; row < B; ++row) {
    const bool padding = (c.pad_ends && (row == 0 || row == B - 1)) || pad.bernoulli(row, c.pad_fraction);
    for (int64_t j = 0; j < per_row; ++j) {
      const int64_t slot = padding ? -1 : order[next++];
      t.ssm_state_indices.set_linear(row * per_row + j, static_cast<double>(slot));
      if (slot < 0) continue;
      for (int64_t e = 0; e < HV * K * V; ++e) {  // the slot's state (any layout: the values are i.i.d.)
        const int64_t hv = e / (K * V), rest = e % (K * V);
        t.initial_state.set({slot, hv, rest / shape[3], rest % shape[3]}, c.zero_pool ? 0.0 : sigma * st.normal(static_cast<uint64_t>(slot * HV * K * V + e)));
      }
    }
  }
  fill_fla_step(t, 0);
  return t;
}

void fill_fla_step(CaseTensors& t, int64_t step) {
  const CaseConfig& c = t.config;
  const int64_t B = c.B, T = c.tokens, H = c.H, HV = c.HV, K = c.K, V = c.V, G = c.gate_per_head ? 1 : K;
  std::vector<double> x(std::max(K, V));
  for (int64_t tt = 0; tt < T; ++tt) {
    const auto tok = static_cast<uint64_t>(step * T + tt);
    const Counter qkv(c.seed, Stream::Qkv, tok);
    const values::GateLogits logits(c, tok);
    for (int64_t row = 0; row < B; ++row) {
      const int64_t base = (row * T + tt);
      const uint64_t heads = static_cast<uint64_t>(row * (2 * H + HV));
      for (int64_t h = 0; h < H; ++h) {
        head_vector(c, qkv, static_cast<uint64_t>((base * 3 * H + h) * K), values::head_magnitude(c, tok, heads + h), false, x);
        for (int64_t i = 0; i < K; ++i) t.q->set_linear((base * H + h) * K + i, x[i]);
        head_vector(c, qkv, static_cast<uint64_t>((base * 3 * H + H + h) * K), values::head_magnitude(c, tok, heads + H + h),
                    true, x);
        for (int64_t i = 0; i < K; ++i) t.k->set_linear((base * H + h) * K + i, x[i]);
      }
      for (int64_t hv = 0; hv < HV; ++hv) {
        const double mv = values::head_magnitude(c, tok, heads + 2 * H + hv);
        const uint64_t vbase = static_cast<uint64_t>(B * T * 3 * H * K + (base * HV + hv) * V);  // past every q and k
        for (int64_t i = 0; i < V; ++i) t.v->set_linear((base * HV + hv) * V + i, mv * qkv.normal(vbase + i));
        const values::HeadGate gate(c, t.A_log.get_linear(hv));
        for (int64_t i = 0; i < G; ++i) {
          const double bias = t.dt_bias.get_linear(hv * G + i);
          const double logit = logits(static_cast<uint64_t>(row * HV * G + hv * G + i), bias);
          // In the kernel: the raw input, to which the kernel adds dt_bias; else the log-decay itself.
          t.g->set_linear((base * HV + hv) * G + i, c.gate_in_kernel ? logit : gate(logit + bias));
        }
        const double b = values::beta_logit(c, tok, static_cast<uint64_t>(row * HV + hv));
        t.beta->set_linear(base * HV + hv, c.beta_sigmoid ? b : 1.0 / (1.0 + std::exp(-b)));
      }
    }
  }
  if (t.num_accepted_tokens) {
    const Counter n(c.seed, Stream::Cursor, static_cast<uint64_t>(step));
    for (int64_t row = 0; row < B; ++row)
      t.num_accepted_tokens->set_linear(row, static_cast<double>(1 + n.below(static_cast<uint64_t>(row), static_cast<uint64_t>(T))));
  }
  t.token = step;
}

}  // namespace kda::engine
