// The CPU example plugin: a short, plain C++ ReplaySSM step (semantics.md) behind the plugin
// ABI, written for the harness's own CI (`kda-harness check --backend plugin:...`) and as
// the template a kernel author starts from. It validates with the harness's contract (so
// an invalid call is refused with SGLang's exact message, as the wrapper would), then
// computes every (row, value head) in float32 with the Helion rounding points: beta through
// b's dtype, stores rounded to their tensors' dtypes.
//
// Built with KDA_EXAMPLE_PACKED_DECODE it is the plain packed decode instead
// (spec/packed-decode.md): the same step at cursor 0, every row flushing, no ring read or
// written, beta kept in float32, `a` and `dt_bias` taken as given.
//
// Built with KDA_EXAMPLE_UNCHECKED_INDICES it trusts the runtime index values as SGLang's
// kernels do (no range or duplicate checks; declared KDA_INVALID_ROWS_NONE).
//
// KDA_MUTANT selects a planted bug (plugins/cpu_example/mutants.hpp) at compile time: each
// `planted(Mutant::X)` below marks where that bug goes. The shipped plugin is built without
// one, and every planted() is a constant false.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/contract_error.hpp"
#include "contract/validate.hpp"
#include "operators/kda_common/cpu_example_contract.hpp"
#include "kda_harness/plugin.h"
#include "plugins/cpu_example/mutants.hpp"
#include "plugins/cpu_example/plugin_glue.hpp"
#include "plugins/cpu_example/tensor_access.hpp"

namespace {

using kda::example::Mutant;
using kda::example::planted;
using kda::example::Tensor;

#ifdef KDA_EXAMPLE_PACKED_DECODE
constexpr bool kPackedDecode = true;
#else
constexpr bool kPackedDecode = false;
#endif

constexpr int64_t kMaxDim = 256;

struct Head {
  std::vector<float> q, k, v, g;
  float beta = 0;
};

// The key of query head h in row `row`, as given.
std::vector<float> raw_key(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t h) {
  const Tensor qkv(a.mixed_qkv);
  std::vector<float> k(d.K);
  const int64_t keys = d.H * (planted(Mutant::KeyOffsetUsesV) ? d.V : d.K);  // where the key block starts
  for (int64_t c = 0; c < d.K; ++c) k[c] = qkv.flat2(row, keys + h * d.K + c);
  return k;
}
// ... L2-normalized when asked.
std::vector<float> load_key(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t h) {
  std::vector<float> k = raw_key(a, d, row, h);
  if (a.use_qk_l2norm_in_kernel && !planted(Mutant::L2NormQOnly)) {
    float kk = 0;
    for (float x : k) kk += x * x;
    const float kn = 1.0f / std::sqrt(kk + 1e-6f);
    for (float& x : k) x *= kn;
  }
  return k;
}

// The query/key head of value head hv (semantics.md: h = hv / (HV/H)).
int64_t query_head(const kda::Dims& d, int64_t hv) { return planted(Mutant::GqaHeadMod) ? hv % d.H : hv / (d.HV / d.H); }

// q, k, v, the gate g and beta of (row, hv), in float32.
Head load_head(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t hv) {
  const Tensor qkv(a.mixed_qkv), av(a.a), bv(a.b), A_log(a.A_log), dt(a.dt_bias);
  const int64_t h = query_head(d, hv);
  Head x;
  x.q.resize(d.K), x.v.resize(d.V), x.g.resize(d.K);
  x.k = load_key(a, d, row, h);
  for (int64_t c = 0; c < d.K; ++c) x.q[c] = qkv.flat2(row, h * d.K + c);
  for (int64_t e = 0; e < d.V; ++e) x.v[e] = qkv.flat2(row, 2 * d.H * d.K + hv * d.V + e);
  if (a.use_qk_l2norm_in_kernel && !planted(Mutant::L2NormKOnly)) {
    float qq = 0;
    for (float q : x.q) qq += q * q;
    const float qn = 1.0f / std::sqrt(qq + 1e-6f);
    for (float& q : x.q) q *= qn;
  }
  const float A = std::exp(A_log.flat1(hv));
  const bool bounded = a.lower_bound && !planted(Mutant::BoundedGateSoftplus);
  for (int64_t c = 0; c < d.K; ++c) {
    // a and dt_bias, flattened: [B, HV*K] and [HV*K] whatever their given rank.
    const float xc = av.flat_row(row, hv * d.K + c) + dt.flat(hv * d.K + c);
    if (bounded) x.g[c] = static_cast<float>(*a.lower_bound) / (1.0f + std::exp(-A * xc));
    else x.g[c] = -A * (xc <= 20.0f ? std::log1p(std::exp(xc)) : xc);
  }
  const float logit = bv.flat2(row, hv);
  const float beta = planted(Mutant::BetaWithoutSigmoid) ? logit : 1.0f / (1.0f + std::exp(-logit));
  // ReplaySSM rounds beta through b's dtype; the plain packed decode keeps it in float32.
  const bool round_beta = kPackedDecode ? planted(Mutant::BetaRoundedThroughB) : !planted(Mutant::BetaNotRounded);
  x.beta = round_beta ? kda::example::round_to(beta, bv.dtype()) : beta;
  return x;
}

// The checkpoint S0[slot, hv] at (e, c).
float checkpoint(const Tensor& S0, const kda::Dims& d, int64_t slot, int64_t hv, int64_t e, int64_t c) {
  if (!planted(Mutant::StateTransposed)) return S0.at4(slot, hv, e, c);
  const int64_t i = c * d.V + e;  // [V, K] storage read as if it were [K, V]
  return S0.at4(slot, hv, i / d.K, i % d.K);
}

void step_head(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t hv, int64_t slot, int64_t cursor,
               bool flush) {
  const Head x = load_head(a, d, row, hv);
  Tensor S0(a.initial_state), D(a.d_cache), Kr(a.k_cache), G(a.g_cache), out(a.out);
  const int64_t h = query_head(d, hv);
  // The state before the token, rebuilt column by column from the checkpoint and the ring
  // (the plain packed decode has none: its ring tensors are null, never read, whatever bug
  // is planted).
  const int64_t records = kPackedDecode ? 0 : planted(Mutant::RingCursorOffByOne) ? cursor + 1 : cursor;
  std::vector<float> S(d.V * d.K), total(d.K, 0.0f), prefix(d.K, 0.0f);
  for (int64_t j = 0; j < records; ++j)
    for (int64_t c = 0; c < d.K; ++c) total[c] += G.at4(slot, hv, j, c);
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] = checkpoint(S0, d, slot, hv, e, c) * std::exp(total[c]);
  for (int64_t j = 0; j < records; ++j) {
    if (!planted(Mutant::RecordDecayOffByOne))
      for (int64_t c = 0; c < d.K; ++c) prefix[c] += G.at4(slot, hv, j, c);
    for (int64_t e = 0; e < d.V; ++e) {
      const float dj = D.at4(slot, hv, j, e);
      for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] += dj * Kr.at4(slot, h, j, c) * std::exp(total[c] - prefix[c]);
    }
    if (planted(Mutant::RecordDecayOffByOne))
      for (int64_t c = 0; c < d.K; ++c) prefix[c] += G.at4(slot, hv, j, c);
  }
  // The token: decay, corrected delta, update, output.
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] *= std::exp(planted(Mutant::GateTwice) ? 2 * x.g[c] : x.g[c]);
  std::vector<float> delta(d.V);
  for (int64_t e = 0; e < d.V; ++e) {
    float sk = 0;
    for (int64_t c = 0; c < d.K; ++c) sk += S[e * d.K + c] * x.k[c];
    delta[e] = x.beta * (x.v[e] - sk);
  }
  for (int64_t e = 0; e < d.V; ++e) {
    float o = 0;
    for (int64_t c = 0; c < d.K; ++c) {
      S[e * d.K + c] += delta[e] * x.k[c];
      o += S[e * d.K + c] * x.q[c] * static_cast<float>(a.scale);
    }
    out.store4(row, 0, hv, e, o);
  }
  if (flush || kPackedDecode) {  // the plain packed decode stores the state every token, no record
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < d.K; ++c) S0.store4(slot, hv, e, c, S[e * d.K + c]);
    if (planted(Mutant::FlushWritesPastSlot))  // row V: the next head's or slot's first row, or a gap
      for (int64_t c = 0; c < d.K; ++c)
        if (S0.holds(slot, hv, d.V, c)) S0.store4(slot, hv, d.V, c, S[(d.V - 1) * d.K + c]);
    return;
  }
  for (int64_t e = 0; e < d.V; ++e) D.store4(slot, hv, cursor, e, delta[e]);
  for (int64_t c = 0; c < d.K; ++c) G.store4(slot, hv, cursor, c, planted(Mutant::GRingSignFlipped) ? -x.g[c] : x.g[c]);
  // One value head of each query-head group writes the group's key.
  if (hv % (d.HV / d.H) == 0 || planted(Mutant::KeyRingRace)) {
    std::vector<float> key = x.k;
    if (planted(Mutant::KeyRingWrongHead)) key = load_key(a, d, row, (h + 1) % d.H);
    if (planted(Mutant::KeyRingRace)) key = load_key(a, d, row, hv % d.H);
    if (planted(Mutant::KeyRingUnnormalized)) key = raw_key(a, d, row, h);
    for (int64_t c = 0; c < d.K; ++c) Kr.store4(slot, h, cursor, c, key[c]);
  }
}

// The slot row `row` works on; negative for a padding row.
int64_t slot_of(const Tensor& indices, const kda::Dims& d, int64_t row) {
  const auto slot = static_cast<int64_t>(indices.flat1(row));
  if (slot < 0 && planted(Mutant::PaddingAsLastSlot)) return d.slots + slot;
  if (slot < 0) return planted(Mutant::PaddingWritten) ? 0 : slot;
  if (planted(Mutant::SlotIsRow)) return row;
  return planted(Mutant::SlotZero) ? 0 : slot;
}

int32_t step(void*, const kda_call* call) {
  return kda::example::guarded([&] {
    const kda::StepArgs a = kda::example::step_args(*call);
    if (planted(Mutant::WritesBeforeValidating) && a.out != nullptr && kda::scalar_type_of(a.out->dtype))
      Tensor(a.out).zero_all();
    const kda::Dims d = kda::example::validate_call(a);
    if (kda::example::kChecksIndices) kda::check_runtime_values(a, d);
    // Its own envelope (kPlugin below): a call beyond it is refused, never computed.
    if ((d.K > kMaxDim || d.V > kMaxDim) && !planted(Mutant::EnvelopeNotEnforced))
      throw std::invalid_argument("cpu-example takes K and V up to " + std::to_string(kMaxDim) + " (got K=" +
                                  std::to_string(d.K) + ", V=" + std::to_string(d.V) + ")");
    const Tensor idx(a.ssm_state_indices), pos(a.write_pos), ff(a.force_flush);
    for (int64_t row = 0; row < d.B; ++row) {
      const int64_t slot = slot_of(idx, d, row);
      if (slot < 0) {
        Tensor out(a.out);
        if (!planted(Mutant::PaddingNotZeroed))
          for (int64_t hv = 0; hv < d.HV; ++hv)
            for (int64_t e = 0; e < d.V; ++e) out.store4(row, 0, hv, e, 0.0f);
        continue;
      }
      if (kPackedDecode) {  // one token, flushed; no ring
        for (int64_t hv = 0; hv < d.HV; ++hv) step_head(a, d, row, hv, slot, 0, true);
        continue;
      }
      // Checked above for named rows (or the caller's duty); clamped so that any row computed stays
      // inside the ring.
      const int64_t cursor = std::clamp<int64_t>(static_cast<int64_t>(pos.flat1(row)), 0, d.L - 1);
      const bool natural = cursor == d.L - 1 && !planted(Mutant::NaturalFlushSkipped);
      const bool forced = a.force_flush != nullptr && ff.flat1(row) != 0 && !planted(Mutant::ForceFlushIgnored);
      for (int64_t hv = 0; hv < d.HV; ++hv) step_head(a, d, row, hv, slot, cursor, natural || forced);
    }
  });
}

const kda_plugin kPlugin = {
    KDA_PLUGIN_ABI_VERSION,
    KDA_EXAMPLE_PLUGIN_NAME,
    KDA_EXAMPLE_OP,
    KDA_PROFILE_HELION,
    // Every dtype and layout the contract allows; K and V up to 256 (a plain loop is slow
    // beyond that); host memory.
    {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES, 1, kMaxDim, 1, kMaxDim, 0,
     1, kDLCPU},
    nullptr,
    step,
    kda::example::last_error,
    kda::example::kInvalidRows,
    KDA_RING_LINEAR,  // the KDA operators have linear rings only
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
