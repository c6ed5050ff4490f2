// The CPU example plugin of kda_triton_replayssm (the KDA path of SGLang's Triton ReplaySSM
// wrapper, spec/circular-replay.md): a short, plain C++ step behind the plugin ABI, a gate per
// key channel, every ring variant: linear and circular rings (records at (cache_base + j) mod
// L; a natural flush a history checkpoint, storing the state before the token and appending
// its record), prefix gates (the g ring holds window prefixes, inclusive) and pre-decayed keys
// (the k ring holds k exp(-prefix); the rebuild scales it by exp(total) once; beta unrounded).
// It refuses what the operator's contract refuses, with its exact messages
// (validate_triton_replayssm on the KDA path), then computes every (row, value head) in
// float32 at the harness's default rounding points: in the rebuild d_j and the decayed key
// rounded to out's dtype before their product; records stored at their rings' dtypes.
//
// KDA_MUTANT selects a planted bug (plugins/cpu_example/mutants.hpp), as in the KDA build.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/validate.hpp"
#include "kda_harness/plugin.h"
#include "operators/gdn_replayssm/contract.hpp"
#include "plugins/cpu_example/mutants.hpp"
#include "plugins/cpu_example/plugin_glue.hpp"
#include "plugins/cpu_example/tensor_access.hpp"

namespace {

using kda::example::Mutant;
using kda::example::planted;
using kda::example::round_to;
using kda::example::Tensor;

constexpr int64_t kMaxDim = 256;

// Query head h's key (L2-normalized when asked), or its query.
std::vector<float> load_qk(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t h, bool key) {
  const Tensor qkv(a.mixed_qkv);
  std::vector<float> x(d.K);
  for (int64_t c = 0; c < d.K; ++c) x[c] = qkv.flat2(row, (key ? d.H * d.K : 0) + h * d.K + c);
  if (a.use_qk_l2norm_in_kernel) {
    float sum = 0;
    for (float v : x) sum += v * v;
    const float inv = 1.0f / std::sqrt(sum + 1e-6f);
    for (float& v : x) v *= inv;
  }
  return x;
}

// The log-gates of (row, hv), one per key channel: a [B, HV, K], dt_bias [HV, K].
std::vector<float> gates(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t hv) {
  const Tensor av(a.a), dt(a.dt_bias), A_log(a.A_log);
  const float A = std::exp(A_log.flat1(hv));
  std::vector<float> g(d.K);
  for (int64_t c = 0; c < d.K; ++c) {
    const float x = av.at3(row, hv, c) + dt.flat2(hv, c);
    g[c] = a.lower_bound ? static_cast<float>(*a.lower_bound) / (1.0f + std::exp(-A * x))
                         : -A * (x <= 20.0f ? std::log1p(std::exp(x)) : x);
  }
  return g;
}

// Where logical record j of the row's window lives.
struct Ring {
  bool circular = false;
  int64_t L = 1, base = 0;
  int64_t phys(int64_t j) const {
    if (!circular) return j;
    if (planted(Mutant::CircularPhysOffByOne)) j += 1;
    if (planted(Mutant::CircularWrapByMask)) return (base + j) & (L - 1);
    return (base + j) % L;
  }
};

enum class Kind { Append, Full, History };

void step_head(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t hv, int64_t slot, int64_t cursor,
               const Ring& ring, Kind kind) {
  Tensor S0(a.initial_state), D(a.d_cache), Kr(a.k_cache), G(a.g_cache), out(a.out);
  const Tensor qkv(a.mixed_qkv), bv(a.b);
  const int64_t h = hv / (d.HV / d.H), K = d.K;
  const bool prefix_ring = a.prefix_gate_cache, predecayed = a.predecayed_k_cache;
  const kda::ScalarType operand = out.dtype();  // the rebuild's dot operands are rounded to out's dtype
  const std::vector<float> k = load_qk(a, d, row, h, true), g = gates(a, d, row, hv);
  std::vector<float> q = load_qk(a, d, row, h, false);
  for (float& x : q) x *= static_cast<float>(a.scale);
  std::vector<float> v(d.V);
  for (int64_t e = 0; e < d.V; ++e) v[e] = qkv.flat2(row, 2 * d.H * K + hv * d.V + e);
  const float sig = 1.0f / (1.0f + std::exp(-bv.flat2(row, hv)));
  const float beta = predecayed ? sig : round_to(sig, bv.dtype());  // pre-decay keeps sigmoid(b) in float32

  // The window's prefixes per record and channel: as stored, or running sums of raw gates.
  const int64_t records = planted(Mutant::RingCursorOffByOne) ? cursor + 1 : cursor;
  std::vector<float> prefix(records * K), total(K, 0.0f);
  for (int64_t j = 0; j < records; ++j)
    for (int64_t c = 0; c < K; ++c) {
      const float x = G.at4(slot, hv, ring.phys(j), c);
      prefix[j * K + c] = prefix_ring ? x : (j ? prefix[(j - 1) * K + c] : 0.0f) + x;
    }
  if (records > 0) std::copy(prefix.end() - K, prefix.end(), total.begin());
  // S = S0 diag(exp(total)) + sum_j d_j (decayed key_j)^T.
  std::vector<float> S(d.V * K);
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < K; ++c) S[e * K + c] = S0.at4(slot, hv, e, c) * std::exp(total[c]);
  std::vector<float> key(K);
  for (int64_t j = 0; j < records; ++j) {
    const int64_t p = ring.phys(j);
    for (int64_t c = 0; c < K; ++c) {
      const bool once = predecayed && !planted(Mutant::PredecayTwice);
      const float decay = once ? std::exp(total[c]) : std::exp(total[c] - prefix[j * K + c]);
      key[c] = round_to(Kr.at4(slot, h, p, c) * decay, operand);
    }
    for (int64_t e = 0; e < d.V; ++e) {
      const float dj = round_to(D.at4(slot, hv, p, e), operand);
      for (int64_t c = 0; c < K; ++c) S[e * K + c] += dj * key[c];
    }
  }
  // A history checkpoint stores the rebuilt state, before the token.
  if (kind == Kind::History && !planted(Mutant::HistoryAfterToken))
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < K; ++c) S0.store4(slot, hv, e, c, S[e * K + c]);
  // The token: S <- S diag(exp(g)); d = beta (v - S k); o = S q + d (k . q).
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < K; ++c) S[e * K + c] *= std::exp(g[c]);
  float kq = 0;
  for (int64_t c = 0; c < K; ++c) kq += k[c] * q[c];
  std::vector<float> delta(d.V);
  for (int64_t e = 0; e < d.V; ++e) {
    float sk = 0, sq = 0;
    for (int64_t c = 0; c < K; ++c) sk += S[e * K + c] * k[c], sq += S[e * K + c] * q[c];
    delta[e] = beta * (v[e] - sk);
    out.store4(row, 0, hv, e, sq + delta[e] * kq);
  }
  if (kind == Kind::Full || (kind == Kind::History && planted(Mutant::HistoryAfterToken)))
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < K; ++c) S0.store4(slot, hv, e, c, S[e * K + c] + delta[e] * k[c]);
  if (kind == Kind::Full) return;
  // The record at phys(cursor) (a wrong physical slot stays inside the ring).
  const int64_t at = ring.phys(cursor) % d.L;
  for (int64_t e = 0; e < d.V; ++e) D.store4(slot, hv, at, e, delta[e]);
  // The window restarts with this token after a history checkpoint.
  std::vector<float> before(K, 0.0f);
  if (kind != Kind::History) before = total;
  for (int64_t c = 0; c < K; ++c) {
    const float inclusive = before[c] + g[c];
    G.store4(slot, hv, at, c, !prefix_ring ? g[c] : planted(Mutant::PrefixExclusive) ? before[c] : inclusive);
  }
  if (hv % (d.HV / d.H) != 0) return;  // the group's first value head writes its key
  for (int64_t c = 0; c < K; ++c)
    Kr.store4(slot, h, at, c, predecayed ? k[c] / (std::exp(before[c]) * std::exp(g[c])) : k[c]);
}

int32_t step(void*, const kda_call* call) {
  return kda::example::guarded([&] {
    const kda::StepArgs a = kda::example::step_args(*call);
    if (planted(Mutant::WritesBeforeValidating) && a.out != nullptr && kda::scalar_type_of(a.out->dtype))
      Tensor(a.out).zero_all();
    const kda::Dims d = kda::validate_triton_replayssm(a, true, kda::Backend::Cpu);
    if (kda::example::kChecksIndices) kda::check_runtime_values(a, d);
    // Its own envelope (kPlugin below): a call beyond it is refused, never computed.
    if ((d.K > kMaxDim || d.V > kMaxDim) && !planted(Mutant::EnvelopeNotEnforced))
      throw std::invalid_argument("cpu-example-kda-triton-replayssm takes K and V up to " + std::to_string(kMaxDim) +
                                  " (got K=" + std::to_string(d.K) + ", V=" + std::to_string(d.V) + ")");
    const Tensor idx(a.ssm_state_indices), pos(a.write_pos), ff(a.force_flush);
    for (int64_t row = 0; row < d.B; ++row) {
      const auto slot = static_cast<int64_t>(idx.flat1(row));
      if (slot < 0) {  // padding: zeros out, nothing else
        Tensor out(a.out);
        if (!planted(Mutant::PaddingNotZeroed))
          for (int64_t hv = 0; hv < d.HV; ++hv)
            for (int64_t e = 0; e < d.V; ++e) out.store4(row, 0, hv, e, 0.0f);
        continue;
      }
      // Checked above (or the caller's duty); clamped so that any row computed stays inside the ring.
      const int64_t cursor = std::clamp<int64_t>(static_cast<int64_t>(pos.flat1(row)), 0, d.L - 1);
      const bool natural = cursor == d.L - 1;
      const bool forced = a.force_flush != nullptr && ff.flat1(row) != 0 && !planted(Mutant::ForceFlushIgnored);
      Ring ring{a.circular_replay, d.L, 0};
      if (ring.circular) ring.base = std::clamp<int64_t>(static_cast<int64_t>(Tensor(a.cache_base).flat1(row)), 0, d.L - 1);
      const Kind kind = forced || (natural && (!ring.circular || d.L == 1)) ? Kind::Full
                        : natural                                           ? Kind::History
                                                                            : Kind::Append;
      for (int64_t hv = 0; hv < d.HV; ++hv) step_head(a, d, row, hv, slot, cursor, ring, kind);
    }
  });
}

const kda_plugin kPlugin = {
    KDA_PLUGIN_ABI_VERSION,
    KDA_EXAMPLE_PLUGIN_NAME,
    KDA_EXAMPLE_OP,
    KDA_PROFILE_HELION,
    // Every float dtype and layout the contract allows, int32 indices (G25); K and V up to
    // 256 (a plain loop is slow beyond that); host memory.
    {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_INT32, 1, kMaxDim, 1, kMaxDim, 0,
     1, kDLCPU},
    nullptr,
    step,
    kda::example::last_error,
    kda::example::kInvalidRows,
    KDA_RING_ALL,  // linear and circular rings, prefix gates, pre-decayed keys
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
