// The case generator (cases/): the one-line CaseConfig round trip, validity, the counter-based
// generator, and the tensors materialize_replayssm_case() builds (valid under the contract, deterministic,
// distinct slots, NaN wherever a step must not read, the caller's cursor protocol).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "cases/rng.hpp"
#include "cases/store_run.hpp"
#include "contract/validate.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

TEST(Rng, Mix64IsSplitMix64) {
  // The first output of splitmix64 seeded with 0 (Vigna's reference splitmix64.c).
  EXPECT_EQ(rng::mix64(0), 0xE220A8397B1DCDAFull);
}

TEST(Rng, UniformAndNormalMoments) {
  const rng::Counter r(42, rng::Stream::Qkv, 3);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform(i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    const double z = r.normal(i);
    sn += z;
    sn2 += z * z;
  }
  // Standard errors: uniform mean 0.29/sqrt(n) = 6.5e-4, normal mean 2.2e-3, variance 3.2e-3.
  EXPECT_NEAR(su / n, 0.5, 4e-3);
  EXPECT_NEAR(sn / n, 0.0, 1.2e-2);
  EXPECT_NEAR(sn2 / n, 1.0, 1.6e-2);
}

TEST(Rng, StreamsAndTokensAreIndependentKeys) {
  const rng::Counter a(1, rng::Stream::Qkv, 0), b(1, rng::Stream::Qkv, 1), c(1, rng::Stream::State, 0), d(2, rng::Stream::Qkv, 0);
  EXPECT_NE(a.bits(0), b.bits(0));
  EXPECT_NE(a.bits(0), c.bits(0));
  EXPECT_NE(a.bits(0), d.bits(0));
  EXPECT_EQ(a.bits(5), rng::Counter(1, rng::Stream::Qkv, 0).bits(5));
}

TEST(CaseConfig, TextRoundTrip) {
  check_property("parse_case_config(to_string(c)) == c", 500, [] {
    CaseConfig c = *gen_case(engine::limits::reference_suites());
    c.pad_fraction = *rc::gen::inRange(0, 1000) / 997.0;
    if (c.lower_bound) c.lower_bound = -*rc::gen::inRange(1, 100000) / 7.0;
    RC_ASSERT(parse_case_config(to_string(c)) == c);
  });
}

TEST(CaseConfig, ParseDefaultsAndErrors) {
  EXPECT_EQ(parse_case_config(""), CaseConfig{});
  EXPECT_EQ(parse_case_config("  K=64\tseed=9 ").K, 64);
  EXPECT_EQ(parse_case_config("lb=-5").lower_bound, std::optional<double>(-5.0));
  EXPECT_EQ(parse_case_config("values=adv").values, ValueMode::Adversarial);
  for (const char* bad : {"Q=1", "K=abc", "act=f64", "l2=2", "K", "values=odd", "seed=-1"}) {
    try {
      parse_case_config(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(CaseConfig, Validity) {
  EXPECT_TRUE(is_valid_config(CaseConfig{}));
  const auto with = [](const char* line) { return is_valid_config(parse_case_config(line)); };
  EXPECT_FALSE(with("K=48"));
  EXPECT_FALSE(with("V=0"));
  EXPECT_FALSE(with("H=3 HV=4"));
  EXPECT_FALSE(with("B=6 slots=5"));
  EXPECT_FALSE(with("L=0"));
  EXPECT_FALSE(with("steps=0"));
  EXPECT_FALSE(with("idx=f32"));
  EXPECT_FALSE(with("state=i32"));
  EXPECT_FALSE(with("pad=1.5"));
  EXPECT_TRUE(with("B=1 H=1 HV=8 K=16 V=256 L=1 slots=1"));
  EXPECT_THROW(materialize_replayssm_case(parse_case_config("K=48")), std::invalid_argument);
}

TEST(CaseTensors, MaterializedCasesAreValidDeterministicAndPoisoned) {
  check_property("materialize", 300, [] {
    const CaseConfig c = *gen_case(engine::limits::reference_suites(64, 2e7), nullptr);
    CaseTensors t = materialize_replayssm_case(c);
    const Dims dims = validate(t.args(), Backend::Cpu);
    check_runtime_values(t.args(), dims);
    RC_ASSERT(dims == (Dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots}));
    // Deterministic, and the seed matters.
    CaseTensors again = materialize_replayssm_case(c);
    RC_ASSERT(again.initial_state.storage() == t.initial_state.storage());
    RC_ASSERT(again.mixed_qkv.storage() == t.mixed_qkv.storage());
    RC_ASSERT(again.k_cache.storage() == t.k_cache.storage());
    CaseConfig other = c;
    other.seed ^= 1;
    RC_ASSERT(materialize_replayssm_case(other).mixed_qkv.storage() != t.mixed_qkv.storage());
    // Distinct slots for named rows, -1 for padding; NaN wherever a step must not read.
    std::set<int64_t> named;
    for (int64_t row = 0; row < c.B; ++row) {
      const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
      const auto cursor = static_cast<int64_t>(t.write_pos.get_linear(row));
      RC_ASSERT(cursor >= 0 && cursor < c.L);
      if (!c.random_cursors) RC_ASSERT(cursor == 0);
      if (slot < 0) { RC_ASSERT(slot == -1); continue; }
      RC_ASSERT(named.insert(slot).second);
      // The window's records (at their physical slots: from cache_base, wrapping, in a circular ring).
      const RingCursor ring = ring_cursor(t, row);
      RC_ASSERT(ring.base >= 0 && ring.base < c.L && (c.circular || ring.base == 0));
      std::set<int64_t> window;
      for (int64_t j = 0; j < cursor; ++j) window.insert(ring.phys(j));
      for (int64_t j = 0; j < c.L; ++j) {
        const bool unwritten = window.count(j) == 0;
        RC_ASSERT(std::isnan(t.d_cache.get({slot, 0, j, 0})) == unwritten);
        RC_ASSERT(std::isnan(t.g_cache.get({slot, c.HV - 1, j, c.K - 1})) == unwritten);
        RC_ASSERT(std::isnan(t.k_cache.get({slot, c.H - 1, j, 0})) == unwritten);
      }
      RC_ASSERT(std::isfinite(t.initial_state.get({slot, c.HV - 1, c.V - 1, c.K - 1})));
    }
    for (int64_t slot = 0; slot < c.slots; ++slot)
      if (!named.count(slot)) RC_ASSERT(std::isnan(t.initial_state.get({slot, 0, 0, 0})));
    for (int64_t i = 0; i < t.mixed_qkv.numel(); ++i) RC_ASSERT(std::isfinite(t.mixed_qkv.get_linear(i)));
  });
}

// Without the kernel's L2 norm the step uses keys as given: the generator keeps their norm at
// most 1.25 (times one rounding to the tensor's dtype), so beta ||k||^2 < 2 for any beta <= 1
// and the delta rule never amplifies the state (tolerance.cpp, fact (b)). Small K is where a
// plain normals / sqrt(K) key exceeds it (K = 1: one draw in five).
TEST(CaseTensors, UnnormalizedKeysStayBelowTheAmplificationLimit) {
  check_property("unnormalized keys have norm <= 1.25", 300, [] {
    engine::SampleLimits limits = engine::limits::reference_suites(8, 2e6);
    limits.K = {1, 16};
    CaseConfig c = *gen_case(limits);
    c.l2norm = false;
    CaseTensors t = materialize_replayssm_case(c);
    const auto norm_of = [&](const HostTensor& x, std::vector<int64_t> index) {
      double ss = 0;
      for (index.back() = 0; index.back() < c.K; ++index.back()) ss += x.get(index) * x.get(index);
      return std::sqrt(ss);
    };
    const double token_limit = 1.25 * (1 + reference::unit_roundoff(c.act_dtype));
    const double ring_limit = 1.25 * (1 + reference::unit_roundoff(c.ring_dtype));
    for (int64_t row = 0; row < c.B; ++row) {
      const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
      const auto cursor = static_cast<int64_t>(t.write_pos.get_linear(row));
      for (int64_t h = 0; h < c.H && slot >= 0; ++h)
        for (int64_t j = 0; j < cursor; ++j) RC_ASSERT(norm_of(t.k_cache, {slot, h, j, 0}) <= ring_limit);
    }
    for (int64_t token = 0; token < c.steps; ++token) {
      fill_token(t, token);
      for (int64_t row = 0; row < c.B; ++row)
        for (int64_t h = 0; h < c.H; ++h) {
          double ss = 0;  // key of head h: mixed_qkv[row, H*K + h*K + i]
          for (int64_t i = 0; i < c.K; ++i) ss += std::pow(t.mixed_qkv.get({row, (c.H + h) * c.K + i}), 2);
          RC_ASSERT(std::sqrt(ss) <= token_limit);
          RC_ASSERT(ss < 2.0);
        }
    }
  });
}

// The fill on several threads (rows split between them) gives the bytes of the fill on one.
TEST(CaseTensors, ThreadedFillGivesTheSameBytes) {
  const CaseConfig c = parse_case_config("B=8 H=2 HV=8 K=128 V=64 L=6 slots=9 env=1 ff=1 state=bf16 seed=17");
  const auto fill = [&c](const char* threads) {
    setenv("KDA_FILL_THREADS", threads, 1);
    CaseTensors t = materialize_replayssm_case(c);  // 8 rows x 65536 state values: eight threads
    fill_token(t, 3);                // 16384 values: two threads
    unsetenv("KDA_FILL_THREADS");
    return t;
  };
  const CaseTensors one = fill("1"), many = fill("8");
  for (auto [x, y] : {std::pair{&one.mixed_qkv, &many.mixed_qkv}, {&one.a, &many.a}, {&one.b, &many.b},
                      {&one.initial_state, &many.initial_state}, {&one.d_cache, &many.d_cache},
                      {&one.k_cache, &many.k_cache}, {&one.g_cache, &many.g_cache}, {&*one.force_flush, &*many.force_flush}})
    EXPECT_EQ(x->storage(), y->storage());
}

// A run stored at once holds the bytes of set_linear element by element: every float dtype,
// compact and strided layouts (a padded slot dim, a page-major ring), runs inside the compact
// inner dims and runs across them (stored element by element), values that round.
TEST(CaseTensors, StoreRunGivesTheBytesOfSetLinear) {
  const rng::Counter r(99, rng::Stream::Qkv);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> layouts = {
      {{3, 2, 5, 4}, {}}, {{3, 2, 5, 4}, {40 + 257, 20, 4, 1}}, {{3, 2, 5, 4}, {8, 4, 3 * 8 + 257, 1}}, {{7, 9}, {9 + 3, 1}}};
  const std::vector<std::pair<int64_t, int64_t>> runs = {{0, 4}, {4, 4}, {8, 40}, {44, 4}, {2, 7}, {0, 0}, {9, 1}};
  uint64_t element = 0;
  for (const ScalarType type : {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16})
    for (const auto& [shape, strides] : layouts)
      for (const auto& [first, n] : runs) {
        HostTensor fast(type, shape, strides), slow(type, shape, strides);
        std::vector<double> values(static_cast<std::size_t>(n));
        for (double& v : values) v = 3 * r.normal(element++);
        store_run(fast, first, values);
        for (int64_t e = 0; e < n; ++e) slow.set_linear(first + e, values[static_cast<std::size_t>(e)]);
        EXPECT_EQ(fast.storage(), slow.storage()) << short_name(type) << " run " << first << "+" << n;
        if (n > 0) {
          EXPECT_NE(fast.storage(), HostTensor(type, shape, strides).storage()) << "nothing stored";
        }
      }
}

TEST(CaseTensors, TokensDependOnlyOnTheirIndex) {
  const CaseConfig c = parse_case_config("B=4 H=2 HV=4 K=32 V=16 L=8 slots=6 steps=8 flush=0.5 values=adv seed=3");
  CaseTensors direct = materialize_replayssm_case(c), walked = materialize_replayssm_case(c);
  fill_token(direct, 5);
  for (int64_t t = 1; t <= 5; ++t) fill_token(walked, t);
  EXPECT_EQ(direct.mixed_qkv.storage(), walked.mixed_qkv.storage());
  EXPECT_EQ(direct.a.storage(), walked.a.storage());
  EXPECT_EQ(direct.b.storage(), walked.b.storage());
  EXPECT_EQ(direct.force_flush->storage(), walked.force_flush->storage());
  fill_token(direct, 6);
  EXPECT_NE(direct.mixed_qkv.storage(), walked.mixed_qkv.storage());
}

TEST(CaseTensors, AdvanceCursorsFollowsTheCallersProtocol) {
  CaseTensors t = materialize_replayssm_case(parse_case_config("B=4 H=1 HV=1 K=16 V=16 L=4 slots=4 pad=0 rcur=0 seed=5"));
  const int64_t cursors[] = {3, 1, 0, 2}, forced[] = {0, 1, 0, 0}, expected[] = {0, 0, 1, 3};
  for (int64_t row = 0; row < 4; ++row) {
    t.write_pos.set_linear(row, static_cast<double>(cursors[row]));
    t.force_flush->set_linear(row, static_cast<double>(forced[row]));
  }
  t.ssm_state_indices.set_linear(3, -1);  // padding keeps its value
  t.write_pos.set_linear(3, 3);
  advance_cursors(t);
  for (int64_t row = 0; row < 3; ++row) EXPECT_EQ(t.write_pos.get_linear(row), expected[row]) << row;
  EXPECT_EQ(t.write_pos.get_linear(3), 3);
}

TEST(CaseTensors, EnvelopeLayoutsPadSlotsAndPages) {
  CaseTensors t = materialize_replayssm_case(parse_case_config("B=2 H=1 HV=2 K=16 V=32 L=4 slots=3 env=1 seed=2"));
  EXPECT_EQ(t.initial_state.strides()[0], 2 * 32 * 16 + 257);
  EXPECT_EQ(t.k_cache.strides()[0], 1 * 4 * 16 + 257);
  EXPECT_EQ(t.d_cache.strides()[2], 3 * 2 * 32 + 257);  // page-major: the cursor dim is outermost
  EXPECT_EQ(t.g_cache.strides()[2], 3 * 2 * 16 + 257);
  EXPECT_GT(t.mixed_qkv.strides()[0], t.mixed_qkv.shape()[1]);
}

}  // namespace
}  // namespace kda::testing
