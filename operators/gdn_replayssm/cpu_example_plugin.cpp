// The CPU example plugin of gdn_replayssm (spec/gdn-replayssm.md): a short, plain C++ GDN
// ReplaySSM step behind the plugin ABI, one scalar forget gate per value head, for the
// harness's own CI and as the template for a GDN kernel's plugin. It refuses what the
// operator's contract refuses, with its exact messages (validate_gdn_replayssm), then computes
// every (row, value head) in float32 at the harness's default rounding points on this path
// (SGLang's Triton kernel's but the key record's): beta through b's dtype; in the rebuild the decayed deltas exp(total - prefix_j) d_j and the
// keys k_j rounded to out's dtype before their product; S k and S q summed first, then
// multiplied by exp(g); the key record stored at k_cache's dtype (the harness's default
// points; SGLang's Triton kernel rounds it through out's dtype first, which its profile allows).
// Linear and circular rings (circular-replay.md: records at (cache_base + j) mod L; a natural
// flush a history checkpoint, storing the state before the token and appending its record);
// prefix_gate_cache is ignored on this path, as the wrapper ignores it.
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

// The query/key head of value head hv.
int64_t query_head(const kda::Dims& d, int64_t hv) { return planted(Mutant::GqaHeadMod) ? hv % d.H : hv / (d.HV / d.H); }

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

// The log-gate of (row, hv): one scalar for the whole head.
float gate(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t hv) {
  const Tensor av(a.a), dt(a.dt_bias), A_log(a.A_log);
  const int64_t head = planted(Mutant::GateWrongHead) ? query_head(d, hv) : hv;
  const float a_value = planted(Mutant::ARowStrideIgnored) ? av.flat(row * d.HV + head) : av.flat2(row, head);
  const float x = a_value + dt.flat1(head), A = std::exp(A_log.flat1(head));
  if (a.lower_bound) return static_cast<float>(*a.lower_bound) / (1.0f + std::exp(-A * x));
  return -A * (x <= 20.0f ? std::log1p(std::exp(x)) : x);
}

// Where logical record j of the row's window lives.
struct Ring {
  bool circular = false;
  int64_t L = 1, base = 0;
  int64_t phys(int64_t j) const {
    if (!circular || planted(Mutant::CircularBaseIgnored)) return j;
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
  const int64_t h = query_head(d, hv);
  const kda::ScalarType operand = out.dtype();  // the rebuild's dot operands are rounded to out's dtype
  const std::vector<float> k = load_qk(a, d, row, h, true);
  std::vector<float> q = load_qk(a, d, row, h, false);
  for (float& x : q) x *= static_cast<float>(a.scale);
  std::vector<float> v(d.V);
  for (int64_t e = 0; e < d.V; ++e) v[e] = qkv.flat2(row, 2 * d.H * d.K + hv * d.V + e);
  const float g = gate(a, d, row, hv);
  const float beta = round_to(1.0f / (1.0f + std::exp(-bv.flat2(row, hv))), bv.dtype());

  // The state before the token: S = S0 exp(total) + sum_j (exp(total - prefix_j) d_j) k_j^T.
  const int64_t records = planted(Mutant::RingCursorOffByOne) ? cursor + 1 : cursor;
  float total = 0;
  for (int64_t j = 0; j < records; ++j) total += G.at3(slot, hv, ring.phys(j));
  std::vector<float> S(d.V * d.K);
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] = S0.at4(slot, hv, e, c) * std::exp(total);
  float prefix = 0;
  for (int64_t j = 0; j < records; ++j) {
    const int64_t p = ring.phys(j);
    if (!planted(Mutant::RecordDecayOffByOne)) prefix += G.at3(slot, hv, p);
    const float decay = std::exp(total - prefix);  // folded onto d_j, before the rounding
    for (int64_t e = 0; e < d.V; ++e) {
      const float dj = round_to(decay * D.at4(slot, hv, p, e), operand);
      for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] += dj * round_to(Kr.at4(slot, h, p, c), operand);
    }
    if (planted(Mutant::RecordDecayOffByOne)) prefix += G.at3(slot, hv, p);
  }
  // A history checkpoint stores the rebuilt state, before the token.
  if (kind == Kind::History && !planted(Mutant::HistoryAfterToken))
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < d.K; ++c) S0.store4(slot, hv, e, c, S[e * d.K + c]);
  // The token: sums first, then the decay exp(g); d = beta (v - exp(g) S k), o = exp(g) S q + d (k . q).
  const float decay = std::exp(g);
  float kq = 0;
  for (int64_t c = 0; c < d.K; ++c) kq += k[c] * q[c];
  std::vector<float> delta(d.V);
  for (int64_t e = 0; e < d.V; ++e) {
    float sk = 0, sq = 0;
    for (int64_t c = 0; c < d.K; ++c) sk += S[e * d.K + c] * k[c], sq += S[e * d.K + c] * q[c];
    delta[e] = beta * (v[e] - decay * sk);
    out.store4(row, 0, hv, e, decay * sq + delta[e] * kq);
  }
  if (kind == Kind::Full || (kind == Kind::History && planted(Mutant::HistoryAfterToken)))
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < d.K; ++c) S0.store4(slot, hv, e, c, decay * S[e * d.K + c] + delta[e] * k[c]);
  if (kind == Kind::Full) return;
  // A wrong physical slot stays inside the ring (each bug's index is taken mod L where it
  // could leave it): the bugs write a wrong record, never past the tensor.
  const int64_t at = ring.phys(cursor) % d.L;
  for (int64_t e = 0; e < d.V; ++e) D.store4(slot, hv, at, e, delta[e]);
  G.store3(slot, hv, planted(Mutant::GRecordWrongCursor) ? (at + 1) % d.L : at, g);
  if (hv % (d.HV / d.H) == 0)  // the group's first value head writes its key
    for (int64_t c = 0; c < d.K; ++c) Kr.store4(slot, h, at, c, k[c]);
}

int32_t step(void*, const kda_call* call) {
  return kda::example::guarded([&] {
    const kda::StepArgs a = kda::example::step_args(*call);
    if (planted(Mutant::WritesBeforeValidating) && a.out != nullptr && kda::scalar_type_of(a.out->dtype))
      Tensor(a.out).zero_all();
    const kda::Dims d = kda::validate_gdn_replayssm(a, kda::Backend::Cpu);
    if (kda::example::kChecksIndices) kda::check_runtime_values(a, d);
    // Its own envelope (kPlugin below): a call beyond it is refused, never computed.
    if ((d.K > kMaxDim || d.V > kMaxDim) && !planted(Mutant::EnvelopeNotEnforced))
      throw std::invalid_argument("cpu-example-gdn-replayssm takes K and V up to " + std::to_string(kMaxDim) +
                                  " (got K=" + std::to_string(d.K) + ", V=" + std::to_string(d.V) + ")");
    const Tensor idx(a.ssm_state_indices), pos(a.write_pos), ff(a.force_flush);
    for (int64_t row = 0; row < d.B; ++row) {
      auto slot = static_cast<int64_t>(idx.flat1(row));
      if (slot < 0 && planted(Mutant::PaddingAsLastSlot)) slot += d.slots;
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
    KDA_RING_LINEAR | KDA_RING_CIRCULAR,
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
