// The key property across signatures: on any case of fla_recurrent_gdn at T = 1 (1-D indices, a
// V-first pool, the gate and the beta sigmoid in the kernel), its float64 reference step equals
// gdn_replayssm's plain float64 GDN recurrence (operators/gdn_replayssm/plain_recurrence.hpp,
// written straight from its spec with a scalar gate) on the same values laid out SGLang's way
// (q, k, v packed as mixed_qkv; g as `a`; beta as `b`; the same pool and indices): its out and
// the states it stores equal that recurrence's rounded once to float32, bit for bit. The fla
// reference runs reference/'s per-key-channel recurrence with the gate repeated over K; the
// property shows that reading agrees with the scalar-gate one.
#include <gtest/gtest.h>

#include "cases/case_tensors.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/description/operator.hpp"
#include "operators/gdn_replayssm/plain_recurrence.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"

namespace kda::testing {
namespace {

const engine::OperatorDescription& fla_gdn() { return engine::find_operator("fla_recurrent_gdn"); }

CaseConfig one_token_case(CaseConfig c) {
  c.tokens = 1;
  c.indices_2d = c.accepted = c.zero_pool = false;
  c.v_first = c.gate_in_kernel = c.beta_sigmoid = true;
  c.state_dtype = c.out_dtype = ScalarType::Float32;  // one rounding, float64 -> float32, on both sides
  c.steps = 1;
  return fla_gdn().fit_case(c);
}

// The fla call's values as gdn_replayssm's plain recurrence reads them.
struct GdnCall {
  HostTensor mixed_qkv, a, b;
  StepArgs args;
};
GdnCall as_gdn_call(const CaseTensors& f) {
  const CaseConfig& c = f.config;
  const int64_t B = c.B, H = c.H, HV = c.HV, K = c.K, V = c.V, width = 2 * H * K + HV * V;
  GdnCall g{HostTensor(c.act_dtype, {B, width}), HostTensor(ScalarType::Float32, {B, HV}), HostTensor(c.act_dtype, {B, HV}), {}};
  for (int64_t row = 0; row < B; ++row) {
    for (int64_t e = 0; e < H * K; ++e) {
      g.mixed_qkv.set_linear(row * width + e, f.q->get_linear(row * H * K + e));
      g.mixed_qkv.set_linear(row * width + H * K + e, f.k->get_linear(row * H * K + e));
    }
    for (int64_t e = 0; e < HV * V; ++e) g.mixed_qkv.set_linear(row * width + 2 * H * K + e, f.v->get_linear(row * HV * V + e));
    for (int64_t e = 0; e < HV; ++e) {
      g.a.set_linear(row * HV + e, f.g->get_linear(row * HV + e));
      g.b.set_linear(row * HV + e, f.beta->get_linear(row * HV + e));
    }
  }
  g.args.mixed_qkv = &g.mixed_qkv.dl();
  g.args.a = &g.a.dl();
  g.args.b = &g.b.dl();
  g.args.A_log = &f.A_log.dl();
  g.args.dt_bias = &f.dt_bias.dl();
  g.args.ssm_state_indices = &f.ssm_state_indices.dl();
  g.args.scale = f.scale;
  g.args.use_qk_l2norm_in_kernel = f.use_qk_l2norm_in_kernel;
  return g;
}

// Compares the fla step's out and stored states with the plain recurrence's; the first
// difference, or "".
std::string difference(const engine::OperatorDescription& op, CaseTensors f) {
  const CaseConfig& c = f.config;
  const Dims d{c.B, c.H, c.HV, c.K, c.V, 0, c.slots};
  const GdnCall g = as_gdn_call(f);
  reference::PlainState<double> state = reference::PlainState<double>::from_tensor(f.initial_state.dl(), d);
  const reference::Matrix<double> out = gdn::plain_gdn_recurrence(state, g.args, d, /*beta_through_b=*/false);
  op.reference_step(op.bind(f.args()), reference::Rounding::Off);
  for (int64_t row = 0; row < d.B; ++row)
    for (int64_t e = 0; e < d.HV * d.V; ++e)
      if (f.out.get_linear(row * d.HV * d.V + e) != static_cast<double>(static_cast<float>(out(row, e))))
        return "out[" + std::to_string(row) + "] element " + std::to_string(e);
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = static_cast<int64_t>(f.ssm_state_indices.get_linear(row));
    if (slot < 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv)
      for (int64_t i = 0; i < d.V; ++i)
        for (int64_t j = 0; j < d.K; ++j)
          if (f.initial_state.get({slot, hv, i, j}) != static_cast<double>(static_cast<float>(state.at(slot, hv)(i, j))))
            return "initial_state[" + std::to_string(slot) + ", " + std::to_string(hv) + "]";
  }
  return "";
}

TEST(FlaGdnPlainRecurrenceProperty, AtOneTokenTheReferenceIsThePlainGdnRecurrenceBitForBit) {
  check_property("fla_recurrent_gdn at T = 1 == gdn_replayssm's plain GDN recurrence", case_count("KDA_REFERENCE_CASES", 100), [] {
    const CaseConfig c = one_token_case(*gen_case(engine::limits::reference_suites(8), nullptr).as("drawn"));
    RC_ASSERT(difference(fla_gdn(), engine::materialize_case(fla_gdn(), c)) == "");
  });
}

// The property can fail: the fla call with its pool read K-first (state_v_first off) computes
// another step where K = V makes the call valid and a live row has a nonzero state.
TEST(FlaGdnPlainRecurrenceProperty, AKFirstReadingOfTheSamePoolDiffers) {
  CaseConfig c = one_token_case(CaseConfig{});
  c.K = c.V = 16;
  c.pad_fraction = 0;
  CaseTensors f = engine::materialize_case(fla_gdn(), c);
  f.state_v_first = false;
  EXPECT_NE(difference(fla_gdn(), std::move(f)), "");
}

}  // namespace
}  // namespace kda::testing
