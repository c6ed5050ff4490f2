// The key property across signatures: on any case of the plain packed decode (one token, a
// V-first pool), flash-linear-attention's recurrent decode (fla_recurrent_kda) at T = 1 with
// the gate and the beta sigmoid in the kernel, given the same values laid out its way (q, k, v
// cut from mixed_qkv; `a` as g; b as beta; the same pool and indices), computes the same step:
// its reference's out and pool equal the packed decode's reference's bit for bit. Both run
// reference/'s one plain recurrence; the property shows the fla operator reads its tensors
// into it as the packed decode reads its own.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/description/operator.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"

namespace kda::testing {
namespace {

const engine::OperatorDescription& packed() { return engine::find_operator("kda_packed_decode"); }
const engine::OperatorDescription& fla() { return engine::find_operator("fla_recurrent_kda"); }

// The packed decode's call as fla's tensors: [B, 1, ...] views of the same values.
StepTensors as_fla_call(const CaseTensors& p) {
  const CaseConfig& c = p.config;
  const int64_t B = c.B, H = c.H, HV = c.HV, K = c.K, V = c.V;
  StepTensors f;
  f.q = HostTensor(c.act_dtype, {B, 1, H, K});
  f.k = HostTensor(c.act_dtype, {B, 1, H, K});
  f.v = HostTensor(c.act_dtype, {B, 1, HV, V});
  f.g = HostTensor(c.act_dtype, {B, 1, HV, K});
  f.beta = HostTensor(c.act_dtype, {B, 1, HV});
  for (int64_t row = 0; row < B; ++row) {
    const int64_t qkv = row * (2 * H * K + HV * V);
    for (int64_t e = 0; e < H * K; ++e) {
      f.q->set_linear(row * H * K + e, p.mixed_qkv.get_linear(qkv + e));
      f.k->set_linear(row * H * K + e, p.mixed_qkv.get_linear(qkv + H * K + e));
    }
    for (int64_t e = 0; e < HV * V; ++e) f.v->set_linear(row * HV * V + e, p.mixed_qkv.get_linear(qkv + 2 * H * K + e));
    for (int64_t e = 0; e < HV * K; ++e) f.g->set_linear(row * HV * K + e, p.a.get_linear(row * HV * K + e));
    for (int64_t e = 0; e < HV; ++e) f.beta->set_linear(row * HV + e, p.b.get_linear(row * HV + e));
  }
  f.A_log = p.A_log;
  f.dt_bias = p.dt_bias;
  f.initial_state = p.initial_state;
  f.ssm_state_indices = p.ssm_state_indices;
  f.out = HostTensor(c.out_dtype, {B, 1, HV, V});
  std::memcpy(f.out.storage().data(), p.out.storage().data(), p.out.storage().size());
  f.scale = p.scale;
  f.use_qk_l2norm_in_kernel = p.use_qk_l2norm_in_kernel;
  f.lower_bound = p.lower_bound;
  f.use_gate_in_kernel = f.use_beta_sigmoid_in_kernel = f.state_v_first = true;
  return f;
}

bool same_bytes(const HostTensor& x, const HostTensor& y) {
  return x.storage().size() == y.storage().size() &&
         std::memcmp(x.storage().data(), y.storage().data(), x.storage().size()) == 0;
}

TEST(FlaPackedDecodeProperty, AtOneTokenTheTwoReferencesAgreeBitForBit) {
  check_property("fla_recurrent_kda at T = 1 == kda_packed_decode", case_count("KDA_REFERENCE_CASES", 150), [] {
    const CaseConfig c = packed().fit_case(*gen_case(engine::limits::reference_suites(8)).as("config"));
    CaseTensors p = materialize_replayssm_case(c);
    for (int64_t token = 0; token < c.steps; ++token) {
      if (token > 0) fill_token(p, token);
      StepTensors f = as_fla_call(p);
      packed().reference_step(packed().bind(p.args()), reference::Rounding::Kernel);
      fla().reference_step(fla().bind(f.args()), reference::Rounding::Kernel);
      RC_ASSERT(same_bytes(p.out, f.out));
      RC_ASSERT(same_bytes(p.initial_state, f.initial_state));
    }
  });
}

// The property can fail: the fla call with its pool read K-first (state_v_first off) computes
// another step wherever K = V makes the call valid and a live row has a nonzero state.
TEST(FlaPackedDecodeProperty, AKFirstReadingOfTheSamePoolDiffers) {
  CaseConfig c = packed().fit_case(CaseConfig{});
  c.K = c.V = 16;
  c.pad_fraction = 0;
  CaseTensors p = materialize_replayssm_case(c);
  StepTensors f = as_fla_call(p);
  f.state_v_first = false;
  packed().reference_step(packed().bind(p.args()), reference::Rounding::Kernel);
  fla().reference_step(fla().bind(f.args()), reference::Rounding::Kernel);
  EXPECT_FALSE(same_bytes(p.out, f.out));
}

}  // namespace
}  // namespace kda::testing
