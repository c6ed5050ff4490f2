// Our kernel's GDN ReplaySSM step (operators/gdn_replayssm/cuda_launch.hpp) against its own KDA step
// on the same data with the gates materialized (spec/gdn-replayssm.md, the key property):
// a [B, HV] repeated over K, dt_bias [HV] repeated, every g record broadcast over K. The GDN
// launch views those tensors with a K stride of 0, so the arithmetic is the same and out,
// the checkpoint, the d and k rings and the row status must agree BITWISE, and each GDN g
// record must equal the KDA ring's channel 0 (every channel, there). Multi-step rollouts with
// the caller's cursor protocol, padding rows and forced flushes; shapes that reach each of
// the four kernels (short ring, its 4-warp form on large grids, long rings, K > 128).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases/rng.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "engine/backends/device_mirror.hpp"
#include "engine/description/row_plan.hpp"
#include "kernels/replayssm_decode.hpp"
#include "operators/gdn_replayssm/cuda_launch.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/row_plan.hpp"
#include "property_tests/kernel_gpu_env.hpp"

namespace kda::testing {
using ::kda::engine::DeviceMirror;
using ::kda::engine::plan_rows;
using ::kda::engine::RowPlan;
namespace {

bool same_bytes(const HostTensor& x, const HostTensor& y) {
  return x.storage().size() == y.storage().size() &&
         std::memcmp(x.storage().data(), y.storage().data(), x.storage().size()) == 0;
}

// The bytes of element `index` of t.
std::vector<std::byte> element_bytes(const HostTensor& t, std::vector<int64_t> index) {
  const std::size_t es = t.dl().dtype.bits / 8;
  const auto* at = t.storage().data() + element_offset(t.dl(), index.data()) * static_cast<int64_t>(es);
  return {at, at + es};
}

// KDA's per-channel gate logits made per head: a[n, hv, c] = a[n, hv, 0] (each token).
void broadcast_gate_logits(CaseTensors& kda) {
  const CaseConfig& c = kda.config;
  for (int64_t n = 0; n < c.B; ++n)
    for (int64_t hv = 0; hv < c.HV; ++hv)
      for (int64_t k = 1; k < c.K; ++k) kda.a.set({n, hv, k}, kda.a.get({n, hv, 0}));
}

// The same for dt_bias and every g record (once, before the first step).
void broadcast_head_parameters(CaseTensors& kda) {
  const CaseConfig& c = kda.config;
  for (int64_t hv = 0; hv < c.HV; ++hv)
    for (int64_t k = 1; k < c.K; ++k) kda.dt_bias.set({hv, k}, kda.dt_bias.get({hv, 0}));
  for (int64_t s = 0; s < c.slots; ++s)
    for (int64_t hv = 0; hv < c.HV; ++hv)
      for (int64_t j = 0; j < c.L; ++j)
        for (int64_t k = 1; k < c.K; ++k) kda.g_cache.set({s, hv, j, k}, kda.g_cache.get({s, hv, j, 0}));
}

// The GDN call beside a KDA case whose gates are per head: every tensor copied, except a
// [B, HV], dt_bias [HV] and g_cache [slots, HV, L] (channel 0 of KDA's).
struct GdnCall {
  StepTensors t;

  explicit GdnCall(const CaseTensors& kda) : t(kda) {
    const CaseConfig& c = kda.config;
    t.dt_bias = HostTensor(c.act_dtype, {c.HV});
    for (int64_t hv = 0; hv < c.HV; ++hv) t.dt_bias.set({hv}, kda.dt_bias.get({hv, 0}));
    t.g_cache = HostTensor(ScalarType::Float32, {c.slots, c.HV, c.L});
    for (int64_t s = 0; s < c.slots; ++s)
      for (int64_t hv = 0; hv < c.HV; ++hv)
        for (int64_t j = 0; j < c.L; ++j) t.g_cache.set({s, hv, j}, kda.g_cache.get({s, hv, j, 0}));
    t.a = HostTensor(c.act_dtype, {c.B, c.HV});
  }
  // This token's inputs and the cursors from the KDA case (its a already per head).
  void take_token(const CaseTensors& kda) {
    const CaseConfig& c = kda.config;
    t.mixed_qkv.copy_bytes_from(kda.mixed_qkv);
    t.b.copy_bytes_from(kda.b);
    t.write_pos.copy_bytes_from(kda.write_pos);
    if (kda.force_flush) t.force_flush->copy_bytes_from(*kda.force_flush);
    for (int64_t n = 0; n < c.B; ++n)
      for (int64_t hv = 0; hv < c.HV; ++hv) t.a.set({n, hv}, kda.a.get({n, hv, 0}));
  }
};

struct Counts {
  int64_t appends = 0, flushes = 0, padding = 0;
};

// One rollout of c on both paths; every difference is a test failure naming the token.
void gdn_matches_kda(const CaseConfig& c, Counts& counts) {
  SCOPED_TRACE(to_string(c));
  ASSERT_TRUE(c.a_3d && c.dt_bias_2d && !c.envelope && c.index_dtype == ScalarType::Int32);
  CaseTensors kda = materialize_replayssm_case(c);
  broadcast_gate_logits(kda);
  broadcast_head_parameters(kda);
  GdnCall gdn(kda);
  DeviceMirror kda_dev, gdn_dev;
  const Dims dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots};
  for (int64_t t = 0; t < c.steps; ++t) {
    if (t > 0) {
      fill_token(kda, t);
      broadcast_gate_logits(kda);
    }
    gdn.take_token(kda);
    for (const RowPlan& p : plan_rows(kda.args(), dims)) {
      if (p.slot < 0)
        ++counts.padding;
      else if (p.accepted())
        p.flush ? ++counts.flushes : ++counts.appends;
    }
    kda_dev.step(kda.args(), [](const StepArgs& a, cudaStream_t s, DLTensor* st) { cuda::replayssm_decode(a, s, st); });
    gdn_dev.step(gdn.t.args(),
                 [](const StepArgs& a, cudaStream_t s, DLTensor* st) { cuda::gdn_replayssm_decode(a, s, st); });
    EXPECT_TRUE(same_bytes(kda.out, gdn.t.out)) << "out differs at token " << t;
    EXPECT_TRUE(same_bytes(kda.initial_state, gdn.t.initial_state)) << "initial_state differs at token " << t;
    EXPECT_TRUE(same_bytes(kda.d_cache, gdn.t.d_cache)) << "d_cache differs at token " << t;
    EXPECT_TRUE(same_bytes(kda.k_cache, gdn.t.k_cache)) << "k_cache differs at token " << t;
    EXPECT_EQ(kda_dev.row_status(), gdn_dev.row_status()) << "row status differs at token " << t;
    int64_t g_diff = 0, kda_channels_diff = 0;
    for (int64_t s = 0; s < c.slots; ++s)
      for (int64_t hv = 0; hv < c.HV; ++hv)
        for (int64_t j = 0; j < c.L; ++j) {
          const auto k0 = element_bytes(kda.g_cache, {s, hv, j, 0});
          g_diff += element_bytes(gdn.t.g_cache, {s, hv, j}) != k0;
          for (int64_t k = 1; k < c.K; ++k) kda_channels_diff += element_bytes(kda.g_cache, {s, hv, j, k}) != k0;
        }
    EXPECT_EQ(g_diff, 0) << "g records differing from the KDA ring's channel 0 at token " << t;
    EXPECT_EQ(kda_channels_diff, 0) << "KDA g records not broadcast over K at token " << t;
    if (::testing::Test::HasFailure()) return;
    advance_cursors(kda);
  }
  EXPECT_TRUE(gdn_dev.guards_intact()) << "the GDN step wrote outside a tensor";
}

// A random GDN-shaped config: K, V in {32, 64, 128}, L in {1, 4, 16}, any float dtypes.
CaseConfig drawn(uint64_t seed) {
  const rng::Counter r(seed, rng::Stream::Adversarial);
  uint64_t i = 0;
  const auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + r.below(i++, v.size())); };
  const ScalarType floats[] = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  const auto dtype = [&] { return floats[r.below(i++, 3)]; };
  CaseConfig c;
  c.K = pick({32, 64, 128});
  c.V = pick({32, 64, 128});
  c.L = pick({1, 4, 16});
  c.H = pick({1, 2, 4});
  c.HV = c.H * pick({1, 2, 4});
  c.B = pick({1, 3, 6});
  c.slots = c.B + pick({0, 3});
  c.act_dtype = dtype(), c.state_dtype = dtype(), c.ring_dtype = dtype(), c.out_dtype = dtype();
  c.l2norm = r.bernoulli(i++, 0.7);
  c.force_flush = r.bernoulli(i++, 0.8);
  if (r.bernoulli(i++, 0.25)) c.lower_bound = -5.0;
  c.pad_fraction = 0.25;
  c.flush_prob = 0.2;
  c.steps = pick({3, 6, 10});
  c.seed = seed;
  return c;
}

CaseConfig gdn_shaped(CaseConfig c) {
  c.a_3d = c.dt_bias_2d = true;
  c.envelope = false;
  c.index_dtype = ScalarType::Int32;
  return c;
}

TEST(KernelGdn, GdnStepEqualsKdaStepWithBroadcastGates) {
  KDA_REQUIRE_GPU();
  const int64_t n = env_int("KDA_GDN_CASES", 60);
  Counts counts;
  for (int64_t i = 0; i < n && !HasFailure(); ++i) gdn_matches_kda(gdn_shaped(drawn(1000 + i)), counts);
  EXPECT_GT(counts.appends, 0);
  EXPECT_GT(counts.flushes, 0);
  EXPECT_GT(counts.padding, 0);
  std::printf("%lld cases: %lld appends, %lld flushes, %lld padding rows\n", static_cast<long long>(n),
              static_cast<long long>(counts.appends), static_cast<long long>(counts.flushes),
              static_cast<long long>(counts.padding));
}

// One shape per kernel the launcher picks: the short ring, its 4-warp form (a 16-bit state
// on >= 1,024 CTAs; float32 at L > 1 on >= 2,048), the long ring (L > 17), K > 128.
TEST(KernelGdn, EveryKernelPathWritesOneGateRecord) {
  KDA_REQUIRE_GPU();
  const char* lines[] = {
      "B=4 H=2 HV=4 K=128 V=128 L=8 slots=6 act=bf16 state=f32 ring=f32 out=bf16 steps=10 flush=0.2 pad=0.25 seed=3",
      "B=32 H=16 HV=32 K=64 V=128 L=16 slots=32 act=bf16 state=bf16 ring=bf16 out=bf16 steps=5 flush=0.2 seed=4",
      "B=64 H=16 HV=32 K=32 V=128 L=8 slots=64 act=bf16 state=f32 ring=f32 out=bf16 steps=4 flush=0.2 seed=5",
      "B=3 H=1 HV=2 K=64 V=64 L=24 slots=4 act=f16 state=f32 ring=bf16 out=f32 steps=30 flush=0.05 pad=0.2 seed=6",
      "B=3 H=1 HV=2 K=256 V=32 L=4 slots=4 act=f32 state=bf16 ring=f32 out=bf16 steps=8 flush=0.2 pad=0.2 lb=-5 seed=7",
  };
  Counts counts;
  for (const char* line : lines) gdn_matches_kda(gdn_shaped(parse_case_config(line)), counts);
  EXPECT_GT(counts.appends, 0);
  EXPECT_GT(counts.flushes, 0);
}

// A GDN call's metadata on a CUDA device (B=3, H=2, HV=4, K=V=32, L=4, slots=5; data
// pointers set but never read: the checks run before any CUDA call, so without a GPU too).
// t[13] is a cache_base, passed only where a test names it.
struct GdnMetadata {
  std::vector<HostTensor> t;
  StepArgs args;

  explicit GdnMetadata(int64_t B = 3) {
    const DLDevice gpu{kDLCUDA, 0};
    t.reserve(14);  // no reallocation: a moved HostTensor relinks its data pointer
    const auto make = [&](ScalarType type, std::vector<int64_t> shape) {
      const std::vector<int64_t> strides = compact_strides(shape);
      t.push_back(HostTensor::metadata(to_dl(type), std::move(shape), strides, gpu, true));
      t.back().dl().data = &t;  // any non-null address
    };
    const auto f32 = ScalarType::Float32, bf16 = ScalarType::BFloat16, i32 = ScalarType::Int32;
    make(bf16, {B, 2 * 2 * 32 + 4 * 32}), make(bf16, {B, 4}), make(bf16, {B, 4}), make(f32, {4}), make(bf16, {4});
    make(f32, {5, 4, 32, 32}), make(f32, {5, 4, 4, 32}), make(f32, {5, 2, 4, 32}), make(f32, {5, 4, 4});
    make(bf16, {B, 1, 4, 32}), make(i32, {B}), make(i32, {B}), make(i32, {B}), make(i32, {B});
    args.mixed_qkv = &t[0].dl(), args.a = &t[1].dl(), args.b = &t[2].dl(), args.A_log = &t[3].dl();
    args.dt_bias = &t[4].dl(), args.initial_state = &t[5].dl(), args.d_cache = &t[6].dl();
    args.k_cache = &t[7].dl(), args.g_cache = &t[8].dl(), args.out = &t[9].dl();
    args.ssm_state_indices = &t[10].dl(), args.write_pos = &t[11].dl(), args.force_flush = &t[12].dl();
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string refusal_of(const StepArgs& a) {
  try {
    cuda::gdn_kernel_dims(a);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "none";
}

TEST(KernelGdn, LauncherReadsGdnShapesAndRefusesWhatTheKernelCannotRead) {
  GdnMetadata ok;
  EXPECT_EQ(cuda::gdn_kernel_dims(ok.args), (Dims{3, 2, 4, 32, 32, 4, 5}));
  const auto refused = [](const std::function<void(GdnMetadata&)>& edit) {
    GdnMetadata m;
    edit(m);
    return refusal_of(m.args);
  };
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.t[10].dl().dtype = to_dl(ScalarType::Int64); }),
               "ssm_state_indices must be int32");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.args.g_cache = m.args.k_cache; }),
               "g_cache has shape (5, 2, 4, 32), the kernel reads (5, 4, 4)");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.t[1].dl().ndim = 1; }), "a has shape (3,)");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.args.dt_bias = m.args.b; }), "dt_bias has shape");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.t[8].dl().dtype = to_dl(ScalarType::BFloat16); }),
               "g_cache must be float32");
  // Circular replay reads cache_base: present, int32, of B elements on the device; without
  // circular_replay it is not read, whatever it is.
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.args.circular_replay = true; }), "cache_base is missing");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) {
                 m.args.circular_replay = true, m.args.cache_base = &m.t[13].dl();
                 m.t[13].dl().dtype = to_dl(ScalarType::Int64);
               }),
               "cache_base must be int32");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) {
                 m.args.circular_replay = true, m.args.cache_base = m.args.A_log;
               }),
               "cache_base has shape (4,), the kernel reads (3,)");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) {
                 m.args.circular_replay = true, m.args.cache_base = &m.t[13].dl(), m.args.prefix_gate_cache = true;
               }),
               "none");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.args.cache_base = m.args.A_log; }), "none");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) {
                 m.args.circular_replay = true, m.args.cache_base = &m.t[13].dl(), m.args.predecayed_k_cache = true;
               }),
               "predecayed_k_cache is not implemented");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) {
                 m.t[4].dl().device = {kDLCPU, 0};
               }),
               "dt_bias must be on mixed_qkv's CUDA device");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.args.force_flush = nullptr; }), "none");
  EXPECT_PRED2(contains, refused([](GdnMetadata& m) { m.t[12].dl().data = nullptr; }),
               "force_flush has no data");
  // B = 0 (the contract accepts it; nothing is launched): tensors of no elements need no data.
  GdnMetadata empty(0);
  for (const int i : {0, 1, 2, 9, 10, 11, 12}) empty.t[i].dl().data = nullptr;
  EXPECT_EQ(cuda::gdn_kernel_dims(empty.args), (Dims{0, 2, 4, 32, 32, 4, 5}));
}

}  // namespace
}  // namespace kda::testing
