#include "operators/replayssm_family/case_tensors.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cases/case_values.hpp"
#include "cases/rng.hpp"
#include "cases/store_run.hpp"

namespace kda {
namespace {

// Gates per (row, value head) and per ring record: one per key channel, or one per head.
int64_t gate_width(const CaseConfig& c) { return c.gate_per_head ? 1 : c.K; }

using rng::Counter;
using rng::Stream;

// Gap that the envelope layout leaves between slots (or ring pages), in elements: an odd
// count, so no padded view is accidentally aligned like a compact one.
constexpr int64_t kEnvelopeGap = 257;

// Every byte of the tensor's storage set to 0xFF: NaN in float32, bfloat16 and float16. Any
// element a step must not read (ring records at or past a cursor, unnamed slots, envelope
// gaps) holds NaN, so reading it shows up in the outputs.
void poison(HostTensor& t) { std::memset(t.storage().data(), 0xFF, t.storage().size()); }

// Row-major strides of a shape whose outermost (slot) dim is padded by the gap (zero-size dims
// counted as 1, as PyTorch does).
std::vector<int64_t> slot_padded_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 1; --d) { s[d] = acc; acc *= std::max<int64_t>(shape[d], 1); }
  s[0] = acc + kEnvelopeGap;
  return s;
}
// [slots, heads, L, X] viewed page-major: storage [L][slots][heads][X], pages separated by
// the gap. A ring layout where one cursor's records of all slots lie together.
std::vector<int64_t> page_major_strides(int64_t slots, int64_t heads, int64_t X) {
  return {heads * X, X, slots * heads * X + kEnvelopeGap, 1};
}

// Without the kernel's L2 norm a key is used as given: K normals divided by sqrt(K) (norm ~1),
// and by more where that norm would exceed kMaxKeyNorm. Then beta ||k||^2 <= 1.25^2 (1 + 2^-8)^2
// < 2 even after rounding to the activation dtype, so the delta rule's factor
// (I - beta k k^T) never amplifies (reference/tolerance.cpp, fact (b)). Uncapped, a K = 1 key
// exceeds sqrt(2) in 16% of the draws, and a saturated beta then multiplies the state by
// |1 - beta k^2| > 1 every token: it grows geometrically out of float16's range.
constexpr double kMaxKeyNorm = 1.25;
double unnormalized_key_divisor(int64_t K, double sum_sq) {
  return std::max(std::sqrt(static_cast<double>(K)), std::sqrt(sum_sq) / kMaxKeyNorm);
}

// A buffer of doubles per thread, reused from run to run (the fill's rows run on threads).
std::vector<double>& scratch(std::size_t n) {
  thread_local std::vector<double> buffer;
  buffer.resize(n);
  return buffer;
}

// A key vector as the kernel would store it: normalized when l2norm, else as above; a
// pre-decayed key ring's times exp(-prefix[i]) (prefix: the record's window prefix).
void write_key(const CaseConfig& c, const Counter& r, uint64_t base, HostTensor& t, int64_t offset_linear,
               const double* prefix = nullptr) {
  std::vector<double>& k = scratch(c.K);
  double ss = 0;
  for (int64_t i = 0; i < c.K; ++i) { k[i] = r.normal(base + i); ss += k[i] * k[i]; }
  const double norm = c.l2norm ? std::sqrt(ss + 1e-6) : unnormalized_key_divisor(c.K, ss);
  for (int64_t i = 0; i < c.K; ++i) k[i] = k[i] / norm * (prefix ? std::exp(-prefix[i]) : 1.0);
  store_run(t, offset_linear, k);
}

// A tensor's elements as doubles (the parameters the fill reads back as stored).
std::vector<double> values_of(const HostTensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.get_linear(static_cast<int64_t>(i));
  return v;
}

void fill_parameters(CaseTensors& t) {
  const CaseConfig& c = t.config;
  for (int64_t hv = 0; hv < c.HV; ++hv) t.A_log.set_linear(hv, values::a_log(c, hv));
  const int64_t gates = gate_width(c);
  for (int64_t hv = 0; hv < c.HV; ++hv)
    for (int64_t i = 0; i < gates; ++i) t.dt_bias.set_linear(hv * gates + i, values::dt_bias(c, hv * c.K + i));
  t.scale = values::query_scale(c);
}

// Slots: a seeded permutation; each non-padding row takes the next one (with pad_ends, the
// last slot is left to none). Cursors: random in [0, L-1] (random_cursors) or 0. Circular
// bases: random in [0, L-1] for live rows; a padding row's is never read, so half of them
// hold a value no ring has (negative or past L).
void fill_indices(CaseTensors& t) {
  const CaseConfig& c = t.config;
  std::vector<int64_t> order(c.slots);
  std::iota(order.begin(), order.end(), 0);
  const Counter so(c.seed, Stream::SlotOrder);
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return so.bits(x) < so.bits(y); });
  if (c.pad_ends) std::stable_partition(order.begin(), order.end(), [&](int64_t s) { return s != c.slots - 1; });
  const Counter pad(c.seed, Stream::Padding), cur(c.seed, Stream::Cursor), cb(c.seed, Stream::CacheBase);
  int64_t next = 0;
  for (int64_t row = 0; row < c.B; ++row) {
    const bool padding = (c.pad_ends && (row == 0 || row == c.B - 1)) || pad.bernoulli(row, c.pad_fraction);
    t.ssm_state_indices.set_linear(row, padding ? -1.0 : static_cast<double>(order[next++]));
    const int64_t cursor = c.random_cursors ? static_cast<int64_t>(cur.below(row, c.L)) : 0;
    t.write_pos.set_linear(row, static_cast<double>(cursor));
    if (t.cache_base) {
      const uint64_t draw = cb.below(row, static_cast<uint64_t>(c.L));
      const int64_t wild = cb.bits(~static_cast<uint64_t>(row)) % 2 ? -1 - static_cast<int64_t>(draw) : c.L + static_cast<int64_t>(draw);
      t.cache_base->set_linear(row, static_cast<double>(padding && row % 2 ? wild : static_cast<int64_t>(draw)));
    }
  }
}

// The most threads a case's fill may use: KDA_FILL_THREADS when set (1: only the caller's),
// else all the machine's cores but one where it has four or more, else 1.
int64_t fill_threads() {
  if (const char* v = std::getenv("KDA_FILL_THREADS"); v != nullptr && *v != '\0') return std::max(1LL, std::atoll(v));
  static const int64_t cores = std::thread::hardware_concurrency();
  return cores >= 4 ? cores - 1 : 1;
}

// fill_row(r) for r in [0, rows), on helper threads too when fill_threads() allows, nothing
// else is filling a case (a single-threaded fuzz target, not a suite whose workers already
// use the cores) and there is enough to fill (`elements` random values). Every value is a
// pure function of its indices and rows write disjoint elements, so the bytes do not depend
// on how the rows are split.
std::atomic<int> g_filling{0};
constexpr double kElementsPerThread = 8192;  // below this a thread costs more than it saves

template <class FillRow>
void for_rows(int64_t rows, double elements, const FillRow& fill_row) {
  const bool alone = g_filling.fetch_add(1) == 0;
  struct Leave {
    ~Leave() { g_filling.fetch_sub(1); }
  } leave;
  const int64_t workers =
      alone ? std::min({rows, fill_threads(), static_cast<int64_t>(elements / kElementsPerThread), int64_t{8}}) : 1;
  if (workers < 2) {
    for (int64_t r = 0; r < rows; ++r) fill_row(r);
    return;
  }
  std::vector<std::thread> helpers;
  for (int64_t w = 1; w < workers; ++w)
    helpers.emplace_back([&fill_row, w, workers, rows] {
      for (int64_t r = w; r < rows; r += workers) fill_row(r);
    });
  for (int64_t r = 0; r < rows; r += workers) fill_row(r);
  for (std::thread& h : helpers) h.join();
}

// A named slot: a random checkpoint and, for j < cursor, plausible ring records (what past
// tokens would have stored). Records at and past the cursor stay NaN. A_log and dt_bias:
// the values the parameter tensors hold. With per-K prefix gates a record's gate is stored as
// its window prefix (the running sum from logical record 0), and a pre-decayed key as
// k exp(-prefix) (H == HV there: a key head is its value head).
void fill_slot(CaseTensors& t, int64_t slot, const RingCursor& ring, std::span<const double> A_log,
               std::span<const double> dt_bias) {
  const CaseConfig& c = t.config;
  const int64_t V = c.V, K = c.K, L = c.L;
  const Counter st(c.seed, Stream::State, slot);
  const double state_sigma = c.values == ValueMode::Adversarial ? 1.0 : 0.3;
  {
    std::vector<double>& state = scratch(c.HV * V * K);
    for (int64_t e = 0; e < c.HV * V * K; ++e) state[e] = state_sigma * st.normal(e);
    store_run(t.initial_state, slot * c.HV * V * K, state);
  }
  const Counter dr(c.seed, Stream::DRing, slot), kr(c.seed, Stream::KRing, slot);
  const int64_t gates = gate_width(c);
  const bool prefixes = c.prefix_gates && !c.gate_per_head, predecayed = prefixes && c.predecayed_keys;
  std::vector<double> prefix(prefixes ? static_cast<std::size_t>(c.HV * K) : 0, 0.0);  // per value head
  for (int64_t logical = 0; logical < ring.write_pos; ++logical) {
    const int64_t j = ring.phys(logical);  // the record's physical slot, which also keys its values
    const values::GateLogits logits(c, ~static_cast<uint64_t>(slot * L + j));
    for (int64_t hv = 0; hv < c.HV; ++hv) {
      const int64_t dbase = ((slot * c.HV + hv) * L + j) * V;
      std::vector<double>& d = scratch(V);
      for (int64_t i = 0; i < V; ++i) d[i] = 0.5 * dr.normal(dbase + i);
      store_run(t.d_cache, dbase, d);
      const int64_t gbase = ((slot * c.HV + hv) * L + j) * K;
      const values::HeadGate gate(c, A_log[hv]);
      std::vector<double>& g = scratch(gates);
      for (int64_t i = 0; i < gates; ++i) {
        const double bias = dt_bias[hv * gates + i];
        g[i] = gate(logits(gbase + i, bias) + bias);
        if (prefixes) g[i] = prefix[hv * K + i] += g[i];
      }
      store_run(t.g_cache, ((slot * c.HV + hv) * L + j) * gates, g);
    }
    for (int64_t h = 0; h < c.H; ++h)
      write_key(c, kr, ((slot * c.H + h) * L + j) * K, t.k_cache, ((slot * c.H + h) * L + j) * K,
                predecayed ? prefix.data() + h * K : nullptr);
  }
}

}  // namespace

CaseTensors materialize_replayssm_case(const CaseConfig& c) {
  if (!is_valid_config(c)) throw std::invalid_argument("materialize_replayssm_case: invalid case config: " + to_string(c));
  CaseTensors t;
  t.config = c;
  t.use_qk_l2norm_in_kernel = c.l2norm;
  t.lower_bound = c.lower_bound;
  const int64_t B = c.B, H = c.H, HV = c.HV, K = c.K, V = c.V, L = c.L, S = c.slots;
  const int64_t qkv_dim = 2 * H * K + HV * V;
  const ScalarType act = c.act_dtype;
  // Activations: mixed_qkv and b need only a unit last stride; with the envelope their rows
  // are padded (a slice of a wider projection output). So does a per-head gate `a` (any row
  // stride, gdn-replayssm.md); a per-channel `a`, dt_bias and out must be contiguous.
  t.mixed_qkv = c.envelope ? HostTensor(act, {B, qkv_dim}, {qkv_dim + kEnvelopeGap, 1}) : HostTensor(act, {B, qkv_dim});
  t.b = c.envelope ? HostTensor(act, {B, HV}, {HV + 3, 1}) : HostTensor(act, {B, HV});
  t.a = c.gate_per_head ? (c.envelope ? HostTensor(act, {B, HV}, {HV + 5, 1}) : HostTensor(act, {B, HV}))
        : c.a_3d        ? HostTensor(act, {B, HV, K})
                        : HostTensor(act, {B, HV * K});
  t.A_log = HostTensor(act, {HV});
  t.dt_bias = c.gate_per_head ? HostTensor(act, {HV}) : c.dt_bias_2d ? HostTensor(act, {HV, K}) : HostTensor(act, {HV * K});
  if (c.gate_per_head) {
    t.initial_state = c.envelope ? HostTensor(c.state_dtype, {S, HV, V, K}, slot_padded_strides({S, HV, V, K}))
                                 : HostTensor(c.state_dtype, {S, HV, V, K});
    t.d_cache = HostTensor(c.ring_dtype, {S, HV, L, V});
    t.k_cache = HostTensor(c.ring_dtype, {S, H, L, K});
    t.g_cache = HostTensor(ScalarType::Float32, {S, HV, L});
  } else if (c.envelope) {
    t.initial_state = HostTensor(c.state_dtype, {S, HV, V, K}, slot_padded_strides({S, HV, V, K}));
    t.d_cache = HostTensor(c.ring_dtype, {S, HV, L, V}, page_major_strides(S, HV, V));
    t.k_cache = HostTensor(c.ring_dtype, {S, H, L, K}, slot_padded_strides({S, H, L, K}));
    t.g_cache = HostTensor(ScalarType::Float32, {S, HV, L, K}, page_major_strides(S, HV, K));
  } else {
    t.initial_state = HostTensor(c.state_dtype, {S, HV, V, K});
    t.d_cache = HostTensor(c.ring_dtype, {S, HV, L, V});
    t.k_cache = HostTensor(c.ring_dtype, {S, H, L, K});
    t.g_cache = HostTensor(ScalarType::Float32, {S, HV, L, K});
  }
  t.out = HostTensor(c.out_dtype, {B, 1, HV, V});
  t.ssm_state_indices = HostTensor(c.index_dtype, {B});
  t.write_pos = HostTensor(ScalarType::Int32, {B});
  if (c.force_flush) t.force_flush = HostTensor(ScalarType::Int32, {B});
  t.circular_replay = c.circular;
  t.prefix_gate_cache = c.prefix_gates;
  t.predecayed_k_cache = c.predecayed_keys;
  if (c.circular) t.cache_base = HostTensor(ScalarType::Int32, {B});
  for (HostTensor* p : {&t.mixed_qkv, &t.a, &t.b, &t.initial_state, &t.d_cache, &t.k_cache, &t.g_cache, &t.out}) poison(*p);

  fill_parameters(t);
  fill_indices(t);
  // Each non-padding row names its own slot: the rows' fills touch disjoint elements.
  const std::vector<double> A_log = values_of(t.A_log), dt_bias = values_of(t.dt_bias);
  for_rows(B, static_cast<double>(B * HV * V * K), [&](int64_t row) {
    const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
    if (slot >= 0) fill_slot(t, slot, ring_cursor(t, row), A_log, dt_bias);
  });
  fill_token(t, 0);
  return t;
}

void fill_token(CaseTensors& t, int64_t token) {
  const CaseConfig& c = t.config;
  const int64_t H = c.H, HV = c.HV, K = c.K, V = c.V;
  const int64_t qkv_dim = 2 * H * K + HV * V;
  const auto tok = static_cast<uint64_t>(token);
  const Counter qkv(c.seed, Stream::Qkv, tok), fl(c.seed, Stream::Flush, tok);
  // Without the kernel's L2 norm, keys of norm ~1, capped (unnormalized_key_divisor), keep
  // beta ||k||^2 < 2 (no amplification); queries get the same scale, uncapped.
  const double qk_sigma = c.l2norm ? 1.0 : 1.0 / std::sqrt(static_cast<double>(K));
  const std::vector<double> dt_bias = values_of(t.dt_bias);
  const values::GateLogits logits(c, tok);
  const int64_t gates = gate_width(c);
  for_rows(c.B, static_cast<double>(c.B * (qkv_dim + HV * K)), [&](int64_t row) {
    std::vector<double>& x = scratch(qkv_dim + gates);  // the row of mixed_qkv, then one head's gate logits
    const int64_t base = row * qkv_dim;
    for (int64_t h = 0; h < H; ++h) {
      const double mq = values::head_magnitude(c, tok, static_cast<uint64_t>(row * (2 * H + HV) + h));
      const int64_t kbase = H * K + h * K;
      double ss = 0;
      for (int64_t i = 0; i < K; ++i) {
        x[h * K + i] = mq * qk_sigma * qkv.normal(base + h * K + i);
        x[kbase + i] = qkv.normal(base + kbase + i);
        ss += x[kbase + i] * x[kbase + i];
      }
      // A key's magnitude only matters through the L2 norm; without it keys stay at norm ~1.
      const double key_scale =
          c.l2norm ? values::head_magnitude(c, tok, static_cast<uint64_t>(row * (2 * H + HV) + H + h))
                   : 1.0 / unnormalized_key_divisor(K, ss);
      for (int64_t i = 0; i < K; ++i) x[kbase + i] = key_scale * x[kbase + i];
    }
    for (int64_t hv = 0; hv < HV; ++hv) {
      const double mv = values::head_magnitude(c, tok, static_cast<uint64_t>(row * (2 * H + HV) + 2 * H + hv));
      const int64_t vbase = 2 * H * K + hv * V;
      for (int64_t i = 0; i < V; ++i) x[vbase + i] = mv * qkv.normal(base + vbase + i);
    }
    store_run(t.mixed_qkv, base, std::span(x).first(qkv_dim));
    const std::span<double> a = std::span(x).subspan(qkv_dim);
    for (int64_t hv = 0; hv < HV; ++hv) {
      for (int64_t i = 0; i < gates; ++i)
        a[i] = logits(static_cast<uint64_t>(row * HV * K + hv * K + i), dt_bias[hv * gates + i]);
      store_run(t.a, (row * HV + hv) * gates, a);
      t.b.set_linear(row * HV + hv, values::beta_logit(c, tok, static_cast<uint64_t>(row * HV + hv)));
    }
    if (t.force_flush) t.force_flush->set_linear(row, fl.bernoulli(row, c.flush_prob) ? 1.0 : 0.0);
  });
  t.token = token;
}

RingCursor ring_cursor(const StepTensors& t, int64_t row) {
  RingCursor r;
  r.circular = t.circular_replay;
  r.L = t.d_cache.shape()[2];
  r.write_pos = static_cast<int64_t>(t.write_pos.get_linear(row));
  r.base = t.circular_replay && t.cache_base ? static_cast<int64_t>(t.cache_base->get_linear(row)) : 0;
  return r;
}

void set_ring_cursor(StepTensors& t, int64_t row, const RingCursor& r) {
  t.write_pos.set_linear(row, static_cast<double>(r.write_pos));
  if (t.circular_replay && t.cache_base) t.cache_base->set_linear(row, static_cast<double>(r.base));
}

void advance_cursors(CaseTensors& t) {
  const CaseConfig& c = t.config;
  for (int64_t row = 0; row < c.B; ++row) {
    if (t.ssm_state_indices.get_linear(row) < 0) continue;
    const RingCursor ring = ring_cursor(t, row);
    const bool forced = t.force_flush && t.force_flush->get_linear(row) != 0;
    set_ring_cursor(t, row, ring.after(ring.step(forced)));
  }
}

}  // namespace kda
