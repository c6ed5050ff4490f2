// Each rounding profile's bound is as tight as that profile needs: a TF32-sized deviation of
// the outputs fails under the Helion profile and passes under the Triton one, ten times as
// much fails under both; keys rounded through a narrower out dtype fail Helion, pass Triton.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "contract/tensor_view.hpp"
#include "engine/function_backend.hpp"
#include "engine/run_case.hpp"
#include "plugins/cpu_example/tensor_access.hpp"
#include "reference/replayssm_step.hpp"

namespace kda::engine {
namespace {

// float32 everywhere: the Helion bound is float32-tight (about 2e-5 on outputs here), the
// Triton bound has TF32 products (2^-11 unit roundoff: about 2e-3).
constexpr const char* kFloat32Case = "B=3 H=1 HV=2 K=16 V=16 L=4 slots=4 act=f32 state=f32 ring=f32 out=f32 steps=6 seed=3";

void scale_all(DLTensor* t, float by) {
  example::Tensor x(t);
  for (int64_t b = 0; b < t->shape[0]; ++b)
    for (int64_t i = 0; i < t->shape[2]; ++i)
      for (int64_t e = 0; e < t->shape[3]; ++e) x.store4(b, 0, i, e, x.at4(b, 0, i, e) * by);
}

CaseReport outputs_off_by(double relative, Profile p) {
  FunctionBackend b("outputs-off", [relative](const StepArgs& a) {
    reference::replayssm_step(a, reference::Rounding::Kernel);
    scale_all(a.out, static_cast<float>(1.0 + relative));
  }, p);
  return run_vs_reference(parse_case_config(kFloat32Case), b);
}

TEST(Profile, ATf32SizedDeviationFailsHelionAndPassesTriton) {
  const double tf32_sized = 2 * reference::kTf32UnitRoundoff;  // about 1e-3
  const CaseReport helion = outputs_off_by(tf32_sized, Profile::Helion);
  const CaseReport triton = outputs_off_by(tf32_sized, Profile::Triton);
  EXPECT_FALSE(helion.out.pass) << helion.summary();
  EXPECT_TRUE(triton.pass()) << triton.summary();
}

TEST(Profile, TenTimesATf32SizedDeviationFailsBoth) {
  const double large = 20 * reference::kTf32UnitRoundoff;
  EXPECT_FALSE(outputs_off_by(large, Profile::Helion).out.pass);
  const CaseReport triton = outputs_off_by(large, Profile::Triton);
  EXPECT_FALSE(triton.out.pass) << triton.summary();
}

TEST(Profile, KeysRoundedThroughOutsDtypeFailHelionAndPassTriton) {
  // A float32 key ring with bfloat16 out: the Triton kernel rounds each stored key through
  // bfloat16 first.
  CaseConfig c = parse_case_config("B=3 H=1 HV=2 K=16 V=16 L=8 slots=4 act=f32 state=f32 ring=f32 out=bf16 steps=5 "
                                   "flush=0 seed=4");
  auto keys_through_bf16 = [](const StepArgs& a) {
    example::Tensor k(a.k_cache);
    std::vector<float> before;
    const int64_t S = a.k_cache->shape[0], H = a.k_cache->shape[1], L = a.k_cache->shape[2], K = a.k_cache->shape[3];
    for (int64_t i = 0; i < S * H * L * K; ++i) before.push_back(k.at4(i / (H * L * K), i / (L * K) % H, i / K % L, i % K));
    reference::replayssm_step(a, reference::Rounding::Kernel);
    // The records this step wrote, rounded through bfloat16 (and back to float32).
    for (int64_t i = 0; i < S * H * L * K; ++i) {
      const int64_t s = i / (H * L * K), h = i / (L * K) % H, j = i / K % L, e = i % K;
      const float now = k.at4(s, h, j, e);
      if (std::memcmp(&now, &before[i], 4) != 0) k.store4(s, h, j, e, example::round_to(now, ScalarType::BFloat16));
    }
  };
  FunctionBackend helion("keys-through-out", keys_through_bf16, Profile::Helion);
  FunctionBackend triton("keys-through-out", keys_through_bf16, Profile::Triton);
  const CaseReport h = run_vs_reference(c, helion), t = run_vs_reference(c, triton);
  EXPECT_FALSE(h.k_ring.pass) << h.summary();
  EXPECT_TRUE(t.pass()) << t.summary();
}

}  // namespace
}  // namespace kda::engine
