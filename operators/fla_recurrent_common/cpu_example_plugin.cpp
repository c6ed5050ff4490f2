// The CPU example plugin of the recurrent decode family (docs/fla-recurrent-decode.md): a short,
// plain C++ recurrent decode behind the plugin ABI with flash-linear-attention's signature, for
// the harness's own CI and as the template for an adapter of such a kernel. KDA's (a gate per
// key channel, fla_recurrent_kda), or with KDA_EXAMPLE_FLA_GDN Gated DeltaNet's (one gate per
// value head, fla_recurrent_gdn). It refuses what the operator's contract refuses
// (validate_fla_recurrent), then runs each live row's T tokens in float32 from the state at
// idx[b, n - 1] (n = num_accepted_tokens[b], 1 when absent), storing the state after token t at
// idx[b, t]; a padding row (first index negative) reads and writes no state and gets zeros in
// out.
//
// KDA_MUTANT selects a planted bug (plugins/cpu_example/mutants.hpp).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/tensor_view.hpp"
#include "kda_harness/plugin.h"
#include "operators/fla_recurrent_common/contract.hpp"
#include "plugins/cpu_example/mutants.hpp"
#include "plugins/cpu_example/plugin_glue.hpp"
#include "plugins/cpu_example/tensor_access.hpp"

namespace {

using kda::example::Mutant;
using kda::example::planted;
using kda::example::Tensor;

#ifdef KDA_EXAMPLE_FLA_GDN
constexpr kda::FlaGate kGate = kda::FlaGate::PerHead;
#else
constexpr kda::FlaGate kGate = kda::FlaGate::PerKey;
#endif

constexpr int64_t kMaxDim = 256;

// Element (row, token) of the index tensor ([B] or [B, T]).
int64_t index_at(const kda::StepArgs& a, int64_t row, int64_t token) {
  const Tensor idx(a.ssm_state_indices);
  return static_cast<int64_t>(a.ssm_state_indices->ndim == 2 ? idx.flat2(row, token) : idx.flat1(row));
}

// The pool's element (slot, hv) at value channel e and key channel c. The pool is contiguous
// inside a slot (the contract), so a head's K * V elements lie at one offset each; a planted bug
// computes that offset by the other layout's formula (as a kernel written for the other layout
// does), which stays inside the head.
struct Pool {
  Tensor t;
  const kda::Dims& d;
  bool v_first;
  int64_t dim3() const { return v_first ? d.K : d.V; }
  int64_t offset(int64_t e, int64_t c) const {
    return v_first != planted(Mutant::StateTransposed) ? e * d.K + c : c * d.V + e;
  }
  float get(int64_t slot, int64_t hv, int64_t e, int64_t c) const {
    const int64_t o = offset(e, c);
    return t.at4(slot, hv, o / dim3(), o % dim3());
  }
  void set(int64_t slot, int64_t hv, int64_t e, int64_t c, float x) {
    const int64_t o = offset(e, c);
    t.store4(slot, hv, o / dim3(), o % dim3(), x);
  }
};

// One head of one token: q, k normalized (if asked), q scaled; the gate; beta.
struct HeadInputs {
  std::vector<float> q, k, v, g;
  float beta = 0;
};

HeadInputs inputs_of(const kda::StepArgs& a, const kda::Dims& d, int64_t row, int64_t t, int64_t hv) {
  const Tensor q(a.q), k(a.k), v(a.v), g(a.g), beta(a.beta), A_log(a.A_log), dt_bias(a.dt_bias);
  const int64_t h = planted(Mutant::GqaHeadMod) ? hv % d.H : hv / (d.HV / d.H);
  HeadInputs x{std::vector<float>(d.K), std::vector<float>(d.K), std::vector<float>(d.V), std::vector<float>(d.K)};
  for (int64_t c = 0; c < d.K; ++c) x.q[c] = q.at4(row, t, h, c), x.k[c] = k.at4(row, t, h, c);
  if (a.use_qk_l2norm_in_kernel)
    for (std::vector<float>* y : {&x.q, &x.k}) {
      if (y == &x.k && planted(Mutant::L2NormQOnly)) continue;
      float sum = 0;
      for (float e : *y) sum += e * e;
      const float inv = 1.0f / std::sqrt(sum + 1e-6f);
      for (float& e : *y) e *= inv;
    }
  for (float& e : x.q) e *= static_cast<float>(a.scale);
  for (int64_t e = 0; e < d.V; ++e) x.v[e] = v.at4(row, t, hv, e);
  // A gate per value head: head hv's (a planted bug: its query head's).
  const int64_t gate_head = planted(Mutant::GateWrongHead) ? h : hv;
  const float A = std::exp(A_log.flat1(gate_head));
  for (int64_t c = 0; c < d.K; ++c) {
    const bool per_key = kGate == kda::FlaGate::PerKey;
    const float raw = per_key ? g.at4(row, t, hv, c) : g.at3(row, t, gate_head);
    if (!a.use_gate_in_kernel) {
      x.g[c] = raw;
      continue;
    }
    const float z = raw + dt_bias.flat1(per_key ? hv * d.K + c : gate_head);
    x.g[c] = a.lower_bound ? static_cast<float>(*a.lower_bound) / (1.0f + std::exp(-A * z))
                           : -A * (z <= 20.0f ? std::log1p(std::exp(z)) : z);
  }
  x.beta = beta.at3(row, t, hv);
  if (a.use_beta_sigmoid_in_kernel && !planted(Mutant::BetaWithoutSigmoid)) x.beta = (a.allow_neg_eigval ? 2.0f : 1.0f) / (1.0f + std::exp(-x.beta));
  return x;
}

void run_row(const kda::StepArgs& a, const kda::Dims& d, int64_t row) {
  Pool pool{Tensor(a.initial_state), d, a.state_v_first};
  Tensor out(a.out);
  const bool two_d = a.ssm_state_indices->ndim == 2;
  const int64_t n = a.num_accepted_tokens ? static_cast<int64_t>(Tensor(a.num_accepted_tokens).flat1(row)) : 1;
  int64_t start_token = planted(Mutant::ResumeAfterAccepted) ? n : n - 1;
  if (planted(Mutant::ResumeFirstToken)) start_token = 0;
  if (start_token >= d.T) start_token = d.T - 1;  // a bug's read stays inside the row
  const auto slot_of = [&](int64_t token) {
    if (planted(Mutant::SlotIsRow)) return row;
    int64_t s = index_at(a, row, two_d ? token : 0);
    if (s < 0 && planted(Mutant::PaddingAsLastSlot)) s += d.slots;
    return s;
  };
  for (int64_t hv = 0; hv < d.HV; ++hv) {
    std::vector<float> S(d.V * d.K);  // [V, K]
    const int64_t start = slot_of(start_token);
    for (int64_t e = 0; e < d.V; ++e)
      for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] = pool.get(start, hv, e, c);
    for (int64_t t = 0; t < d.T; ++t) {
      const HeadInputs x = inputs_of(a, d, row, t, hv);
      for (int64_t e = 0; e < d.V; ++e)
        for (int64_t c = 0; c < d.K; ++c) S[e * d.K + c] *= std::exp(planted(Mutant::GateTwice) ? 2 * x.g[c] : x.g[c]);
      for (int64_t e = 0; e < d.V; ++e) {
        float sk = 0;
        for (int64_t c = 0; c < d.K; ++c) sk += S[e * d.K + c] * x.k[c];
        const float delta = x.beta * (x.v[e] - sk);
        float o = 0;
        for (int64_t c = 0; c < d.K; ++c) {
          S[e * d.K + c] += delta * x.k[c];
          o += S[e * d.K + c] * x.q[c];
        }
        out.store4(row, t, hv, e, o);
      }
      const int64_t slot = slot_of(t);
      for (int64_t e = 0; e < d.V; ++e)
        for (int64_t c = 0; c < d.K; ++c) pool.set(slot, hv, e, c, S[e * d.K + c]);
    }
  }
}

int32_t step(void*, const kda_call* call) {
  return kda::example::guarded([&] {
    const kda::StepArgs a = kda::fla_recurrent_args(kda::example::step_args(*call), kGate);
    if (planted(Mutant::WritesBeforeValidating) && a.out != nullptr && kda::scalar_type_of(a.out->dtype))
      Tensor(a.out).zero_all();
    const kda::Dims d = kda::validate_fla_recurrent(a, kda::Backend::Cpu, kGate);
    if (kda::example::kChecksIndices) kda::check_fla_runtime_values(a, d);
    if ((d.K > kMaxDim || d.V > kMaxDim) && !planted(Mutant::EnvelopeNotEnforced))
      throw std::invalid_argument(KDA_EXAMPLE_PLUGIN_NAME " takes K and V up to " + std::to_string(kMaxDim) +
                                  " (got K=" + std::to_string(d.K) + ", V=" + std::to_string(d.V) + ")");
    // Its own envelope: compact tensors only (the contract lets the pool have any slot stride).
    if (!kda::is_contiguous(*a.initial_state) && !planted(Mutant::EnvelopeNotEnforced))
      throw std::invalid_argument(KDA_EXAMPLE_PLUGIN_NAME " takes a compact pool only");
    if (a.beta->ndim == 4) throw std::invalid_argument(KDA_EXAMPLE_PLUGIN_NAME " takes beta as [B, T, HV] only");
    for (int64_t row = 0; row < d.B; ++row) {
      if (index_at(a, row, 0) < 0 && !planted(Mutant::PaddingAsLastSlot) && !planted(Mutant::SlotIsRow)) {
        Tensor out(a.out);
        for (int64_t t = 0; t < d.T; ++t)
          for (int64_t hv = 0; hv < d.HV; ++hv)
            for (int64_t e = 0; e < d.V; ++e) out.store4(row, t, hv, e, 0.0f);
        continue;
      }
      run_row(a, d, row);
    }
  });
}

const kda_plugin kPlugin = {
    KDA_PLUGIN_ABI_VERSION,
    KDA_EXAMPLE_PLUGIN_NAME,
    KDA_EXAMPLE_OP,
    KDA_PROFILE_HELION,
    // Every float dtype, int32 and int64 indices, K and V up to 256 (a plain loop is slow
    // beyond that), compact tensors only (as fla's kernel reads them), host memory.
    {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_INT32 | KDA_DT_INT64, 1, kMaxDim,
     1, kMaxDim, 0, 0, kDLCPU},
    nullptr,
    step,
    kda::example::last_error,
    kda::example::kInvalidRows,
    KDA_RING_LINEAR,
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
