// The CUDA kernel against the reference (rounding points modelled) over random rollouts and
// over every dtype combination. KDA_GPU_ROLLOUTS sets the number of random rollouts (default
// 1000); on a machine without a GPU the tests skip.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <map>
#include <string>

#include "property_tests/rc_chooser.hpp"
#include "property_tests/kernel_gpu_env.hpp"
#include "engine/backends/cuda_backend.hpp"
#include "engine/driver/run_case.hpp"
#include "kernels/replayssm_params.hpp"

namespace kda::testing {
using ::kda::engine::CaseReport;
using ::kda::engine::run_vs_reference;
using ::kda::engine::make_cuda_backend;
namespace {

// Worst error/tolerance ratio seen per dtype, for the closing report.
struct WorstByDtype {
  struct Entry {
    double ratio = 0, error = 0, tolerance = 0;
    int64_t rollouts = 0;
  };
  std::map<std::string, Entry> entries;
  void add(const std::string& key, const reference::Comparison& c) {
    Entry& e = entries[key];
    ++e.rollouts;
    if (c.blocks == 0) return;
    const double ratio = c.tolerance > 0 ? c.worst_error / c.tolerance : 0;
    if (ratio >= e.ratio) e = {ratio, c.worst_error, c.tolerance, e.rollouts};
  }
  void add(const CaseReport& r) {
    add("out " + std::string(name_of(r.config.out_dtype)), r.out);
    add("state " + std::string(name_of(r.config.state_dtype)), r.state);
    add("d ring " + std::string(name_of(r.config.ring_dtype)), r.d_ring);
    add("k ring " + std::string(name_of(r.config.ring_dtype)), r.k_ring);
    add("g ring float32", r.g_ring);
  }
  void print(const char* title) const {
    std::printf("%s: worst error vs tolerance per dtype\n", title);
    for (const auto& [key, e] : entries)
      std::printf("  %-18s rollouts %6lld  worst %.3e  tolerance %.3e  ratio %.3f\n", key.c_str(),
                  static_cast<long long>(e.rollouts), e.error, e.tolerance, e.ratio);
  }
};

TEST(KernelVsReference, RandomRollouts) {
  KDA_REQUIRE_GPU();
  WorstByDtype worst;
  int64_t rollouts = 0, tokens = 0, flushes = 0, appends = 0;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = static_cast<int>(env_int("KDA_GPU_ROLLOUTS", 1000));
  rc::detail::TestMetadata meta;
  meta.id = meta.description = "KernelVsReference/RandomRollouts";
  const auto result = rc::detail::checkTestable(
      [&] {
        const CaseConfig c = *gen_case(engine::limits::gpu_suites());
        auto backend = make_cuda_backend(-1);  // fresh device buffers per rollout
        const CaseReport r = run_vs_reference(c, *backend);
        if (!r.pass()) RC_FAIL(r.summary());
        ++rollouts, tokens += r.tokens, flushes += r.flushes, appends += r.appends;
        worst.add(r);
      },
      meta, params);
  std::printf("kernel vs reference: %lld rollouts passed, %lld tokens, %lld row flushes, %lld row appends\n",
              static_cast<long long>(rollouts), static_cast<long long>(tokens), static_cast<long long>(flushes),
              static_cast<long long>(appends));
  worst.print("kernel vs reference");
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream msg;
    rc::detail::printResultMessage(result, msg);
    FAIL() << msg.str();
  }
}

// 81 combinations of activation, state, ring and out dtypes, each in one rollout with natural
// and forced flushes, GQA, padding and divergent cursors (envelope layout on every other one).
TEST(KernelVsReference, EveryDtypeCombination) {
  KDA_REQUIRE_GPU();
  WorstByDtype worst;
  const ScalarType floats[] = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  uint64_t seed = 1000;
  for (ScalarType act : floats)
    for (ScalarType state : floats)
      for (ScalarType ring : floats)
        for (ScalarType out : floats) {
          CaseConfig c = parse_case_config("B=6 H=2 HV=4 K=32 V=64 L=5 slots=8 steps=9 pad=0.15 flush=0.2 rcur=1 ff=1");
          c.act_dtype = act, c.state_dtype = state, c.ring_dtype = ring, c.out_dtype = out;
          c.index_dtype = seed % 2 ? ScalarType::Int64 : ScalarType::Int32;
          c.envelope = seed % 2 == 0;
          c.seed = seed++;
          auto backend = make_cuda_backend(-1);
          const CaseReport r = run_vs_reference(c, *backend);
          EXPECT_TRUE(r.pass()) << r.summary();
          EXPECT_GT(r.flushes, 0) << to_string(c);
          EXPECT_GT(r.appends, 0) << to_string(c);
          worst.add(r);
        }
  worst.print("every dtype combination");
}

// Shapes of a real layer (K = V = 128, bfloat16 activations, float32 or bfloat16 state),
// including a 64-record ring that the rebuild walks in several chunks.
TEST(KernelVsReference, ProductionShapes) {
  KDA_REQUIRE_GPU();
  for (const char* line :
       {"B=16 H=4 HV=16 K=128 V=128 L=8 slots=20 steps=20 act=bf16 state=f32 ring=bf16 out=bf16 pad=0.1 flush=0.1",
        "B=16 H=4 HV=16 K=128 V=128 L=8 slots=16 steps=20 act=bf16 state=bf16 ring=bf16 out=bf16 pad=0 flush=0.1",
        "B=4 H=2 HV=4 K=128 V=128 L=64 slots=6 steps=70 act=bf16 state=f32 ring=bf16 out=bf16 pad=0 flush=0 rcur=1"}) {
    auto backend = make_cuda_backend(-1);
    const CaseReport r = run_vs_reference(parse_case_config(line), *backend);
    EXPECT_TRUE(r.pass()) << r.summary();
    EXPECT_GT(r.flushes, 0) << line;
    std::printf("%s\n", r.summary().c_str());
  }
}

// Grids large enough for the launcher's 4-warp kernel (a 16-bit state on >= 1,024 CTAs, a
// float32 one at L > 1 on >= 2,048), which the random rollouts (<= 96 CTAs) never reach: every
// state dtype and lane width, runtime-dtype activations of every width, int64 indices with
// strided layouts, a duplicate scan longer than one batch per thread (B = 300 over 64 threads).
TEST(KernelVsReference, LargeGrids) {
  KDA_REQUIRE_GPU();
  for (const char* line :
       {"B=64 H=4 HV=16 K=128 V=128 L=8 slots=70 steps=6 act=bf16 state=bf16 ring=bf16 out=bf16 pad=0.1 flush=0.2 seed=11",
        "B=128 H=4 HV=16 K=128 V=128 L=8 slots=130 steps=3 act=f16 state=f32 ring=f32 out=f32 idx=i64 env=1 pad=0.1 "
        "flush=0.2 seed=12",
        "B=300 H=1 HV=4 K=64 V=64 L=16 slots=310 steps=6 act=f32 state=f16 ring=f16 out=f32 lb=-5 pad=0.2 flush=0.1 "
        "seed=13",
        "B=64 H=2 HV=16 K=32 V=128 L=1 slots=64 steps=3 act=bf16 state=bf16 ring=bf16 out=bf16 pad=0.1 seed=14"}) {
    auto backend = make_cuda_backend(-1);
    const CaseReport r = run_vs_reference(parse_case_config(line), *backend);
    EXPECT_TRUE(r.pass()) << r.summary();
    EXPECT_GT(r.flushes, 0) << line;
    std::printf("%s\n", r.summary().c_str());
  }
}

// The V split (replayssm_short_ring_kernel.cu: a head over V / 32 CTAs of 32 rows on grids of
// at most 384 such CTAs) on both sides of its bounds: one token at B = 1 with 32 heads (the
// plain decode's ring of one), rings of 8 and 17, V = 256 in 8 CTAs a head, and the first
// grid past the bound, which keeps 128-row CTAs.
TEST(KernelVsReference, HeadsSplitOverCtasOnSmallGrids) {
  KDA_REQUIRE_GPU();
  const struct {
    const char* line;
    bool split;
  } cases[] = {
      {"B=1 H=32 HV=32 K=128 V=128 L=1 slots=2 steps=4 act=bf16 state=f32 ring=bf16 out=bf16 pad=0 seed=21", true},
      {"B=3 H=8 HV=32 K=128 V=128 L=8 slots=5 steps=12 act=bf16 state=bf16 ring=bf16 out=bf16 pad=0 flush=0.2 seed=22",
       true},
      {"B=2 H=2 HV=4 K=64 V=256 L=17 slots=4 steps=20 act=f16 state=f32 ring=f32 out=f32 pad=0.3 flush=0.1 seed=23",
       true},
      {"B=4 H=8 HV=32 K=128 V=128 L=8 slots=6 steps=10 act=bf16 state=f32 ring=bf16 out=bf16 pad=0.2 flush=0.2 seed=24",
       false}};
  for (const auto& [line, split] : cases) {
    const CaseConfig c = parse_case_config(line);
    cuda::detail::ReplayParams p;
    p.B = c.B, p.HV = c.HV, p.V = c.V;
    EXPECT_EQ(cuda::detail::short_ring_splits_heads(p), split) << line;
    auto backend = make_cuda_backend(-1);
    const CaseReport r = run_vs_reference(c, *backend);
    EXPECT_TRUE(r.pass()) << r.summary();
    EXPECT_GT(r.flushes, 0) << line;
    std::printf("%s\n", r.summary().c_str());
  }
}

}  // namespace
}  // namespace kda::testing
