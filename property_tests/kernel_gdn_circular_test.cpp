// Our kernel's GDN step on circular rings (spec/circular-replay.md) against the CPU reference,
// through the engine's one driver (engine/driver/run_case.hpp): at every step out, the checkpoint and
// the d, k and g records within the kernel's profile bounds of the reference's (the reference
// models the kernel's rounding points), the row status the host plan predicts, and no byte
// outside the step's footprint changed (other slots, ring records other than phys(w), the
// checkpoint of an appending row, every input, the guard regions around each tensor). The
// caller's advance rule (contract/ring_protocol.hpp) moves write_pos and cache_base between
// steps. Rollouts cover ring lengths on and off powers of two, every base of each ring, natural
// (history) and forced flushes, padding rows with bases no ring has, and each kernel that
// serves circular rings (the long-ring kernel at every L for K <= 128, the K > 128 kernel).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <set>
#include <string>

#include "cases/rng.hpp"
#include "contract/ring_protocol.hpp"
#include "engine/backends/cuda_backend.hpp"
#include "engine/driver/run_case.hpp"
#include "operators/gdn_replayssm/description.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/kernel_gpu_env.hpp"

namespace kda::testing {
using ::kda::engine::CaseReport;
using ::kda::engine::make_cuda_backend;
using ::kda::engine::run_vs_reference;
namespace {

// What a rollout's live rows meet, replayed on the host by the caller's protocol (the same
// draws as the driver's: materialize, fill_token, advance_cursors).
struct Coverage {
  std::set<int64_t> bases;  // cache_base values of live rows at some step
  int64_t full = 0, history = 0, appends = 0, padding = 0;

  void add(const CaseConfig& c) {
    CaseTensors t = materialize_replayssm_case(c);
    for (int64_t step = 0; step < c.steps; ++step) {
      if (step > 0) fill_token(t, step);
      for (int64_t row = 0; row < c.B; ++row) {
        if (t.ssm_state_indices.get_linear(row) < 0) {
          ++padding;
          continue;
        }
        const RingCursor ring = ring_cursor(t, row);
        bases.insert(ring.base);
        const bool forced = t.force_flush && t.force_flush->get_linear(row) != 0;
        const RingStep kind = ring.step(forced);
        (kind == RingStep::Full ? full : kind == RingStep::History ? history : appends) += 1;
      }
      advance_cursors(t);
    }
  }
};

// A random circular GDN config at ring length L: K in {32, 64, 128} (256 one case in eight:
// the K > 128 kernel), V in {32, 64}, any float dtypes, padding, forced flushes, tokens enough
// for every row to reach a natural flush (3L + 4, or L + 6 past L = 8), prefix_gate_cache on
// in half of them (accepted and ignored on GDN's path).
CaseConfig circular_drawn(uint64_t seed, int64_t L) {
  const rng::Counter r(seed, rng::Stream::Adversarial);
  uint64_t i = 0;
  const auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + r.below(i++, v.size())); };
  const ScalarType floats[] = {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  const auto dtype = [&] { return floats[r.below(i++, 3)]; };
  CaseConfig c;
  c.K = r.bernoulli(i++, 0.125) ? 256 : pick({32, 64, 128});
  c.V = pick({32, 64});
  c.L = L;
  c.H = pick({1, 2});
  c.HV = c.H * pick({1, 2});
  c.B = pick({3, 6, 9});
  c.slots = c.B + pick({0, 2});
  c.act_dtype = dtype(), c.state_dtype = dtype(), c.ring_dtype = dtype(), c.out_dtype = dtype();
  c.l2norm = r.bernoulli(i++, 0.8);
  c.force_flush = r.bernoulli(i++, 0.8);
  if (r.bernoulli(i++, 0.25)) c.lower_bound = -5.0;
  c.pad_fraction = 0.25;
  c.flush_prob = 0.15;
  c.steps = L <= 8 ? 3 * L + 4 : L + 6;
  c.circular = true;
  c.prefix_gates = r.bernoulli(i++, 0.5);
  c.seed = seed;
  return engine::gdn_replayssm_operator().fit_case(c);
}

void expect_pass(const CaseReport& report) {
  EXPECT_TRUE(report.pass()) << report.summary() << "\nreplay: " << report.replay();
  EXPECT_TRUE(report.tokens == report.config.steps) << report.tokens_run();
}

// Ring lengths: 1 (every step a full checkpoint), off and on powers of two, one staged chunk
// (16 records) and past it (the long-ring kernel's chunks wrap inside a chunk).
constexpr int64_t kRingLengths[] = {1, 2, 3, 5, 6, 7, 8, 12, 16, 17, 18, 24, 33};

TEST(KernelGdnCircular, RolloutsMatchReference) {
  KDA_REQUIRE_GPU();
  const auto backend = make_cuda_backend(-1, engine::gdn_replayssm_operator());
  const int64_t per_length = env_int("KDA_GDN_CIRC_CASES", 3);
  Coverage all;
  for (const int64_t L : kRingLengths) {
    Coverage here;
    // Cases until every base of the ring was met by a live row (at least per_length cases).
    for (int64_t n = 0; n < 4 * per_length + L && !HasFailure(); ++n) {
      if (n >= per_length && static_cast<int64_t>(here.bases.size()) == L) break;
      const CaseConfig c = circular_drawn(5000 + 100 * L + n, L);
      SCOPED_TRACE(to_string(c));
      here.add(c);
      expect_pass(run_vs_reference(c, *backend));
    }
    EXPECT_EQ(static_cast<int64_t>(here.bases.size()), L) << "bases met at L = " << L;
    all.full += here.full, all.history += here.history, all.appends += here.appends, all.padding += here.padding;
  }
  EXPECT_GT(all.history, 0);
  EXPECT_GT(all.full, 0);
  EXPECT_GT(all.appends, 0);
  EXPECT_GT(all.padding, 0);
  std::printf("circular rollouts: %lld full checkpoints, %lld history checkpoints, %lld appends, %lld padding rows\n",
              static_cast<long long>(all.full), static_cast<long long>(all.history),
              static_cast<long long>(all.appends), static_cast<long long>(all.padding));
}

// One shape per kernel that serves circular rings, with a wrap inside every window; small
// enough for compute-sanitizer (scripts/gpu/gdn-device.sh runs its memcheck and racecheck).
TEST(KernelGdnCircular, EveryKernelPath) {
  KDA_REQUIRE_GPU();
  const auto backend = make_cuda_backend(-1, engine::gdn_replayssm_operator());
  const char* lines[] = {
      // long-ring kernel, one staged chunk, L off a power of two, 16-bit state
      "B=4 H=2 HV=4 K=128 V=128 L=5 slots=6 act=bf16 state=bf16 ring=f32 out=bf16 steps=14 flush=0.15 pad=0.25 "
      "seed=11 circ=1",
      // long-ring kernel, windows over two chunks that wrap inside one
      "B=3 H=1 HV=2 K=64 V=64 L=21 slots=4 act=f16 state=f32 ring=bf16 out=f32 steps=28 flush=0.05 pad=0.2 "
      "seed=12 circ=1 pgc=1",
      // K > 128
      "B=3 H=1 HV=2 K=256 V=32 L=6 slots=4 act=f32 state=bf16 ring=f32 out=bf16 steps=16 flush=0.2 pad=0.2 lb=-5 "
      "seed=13 circ=1",
  };
  Coverage all;
  for (const char* line : lines) {
    const CaseConfig c = engine::gdn_replayssm_operator().fit_case(parse_case_config(line));
    SCOPED_TRACE(line);
    all.add(c);
    expect_pass(run_vs_reference(c, *backend));
  }
  EXPECT_GT(all.history, 0);
  EXPECT_GT(all.full, 0);
}

// A live row whose cache_base is outside [0, L-1] (X-CACHE-BASE): the kernel flags it
// (kRowCursorOutOfRange), writes zeros to its out and nothing else, as the host plan predicts;
// the other rows are computed as usual.
TEST(KernelGdnCircular, BaseOutsideTheRingRejectsTheRow) {
  KDA_REQUIRE_GPU();
  const auto backend = make_cuda_backend(-1, engine::gdn_replayssm_operator());
  const CaseConfig c = engine::gdn_replayssm_operator().fit_case(parse_case_config(
      "B=4 H=2 HV=4 K=64 V=64 L=6 slots=5 act=bf16 state=f32 ring=f32 out=bf16 steps=8 flush=0.2 pad=0 seed=21 circ=1"));
  int64_t mutated = 0;
  const auto wild_base = [&](CaseTensors& t, int64_t token) {
    const int64_t row = token % c.B;
    const int64_t L = c.L;
    t.cache_base->set_linear(row, static_cast<double>(token % 2 ? L + token : -1 - token));
    ++mutated;
  };
  const CaseReport report = run_vs_reference(c, *backend, wild_base);
  expect_pass(report);
  EXPECT_EQ(mutated, c.steps);
  EXPECT_EQ(report.rejected_rows, c.steps) << "one row per step outside the ring";
}

}  // namespace
}  // namespace kda::testing
