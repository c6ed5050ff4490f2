// The sample space and the catalog's message renderer: every suite's limits give valid cases
// inside those limits and under the work budget (where the limits' floors allow), valid calls
// inside theirs, and a message renders only with exactly the values its template names.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "contract/catalog_message.hpp"
#include "contract/error_catalog.hpp"
#include "contract/tensor_view.hpp"
#include "engine/description/counter_chooser.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "operators/replayssm_family/sample_space.hpp"

namespace kda::engine {
namespace {

void expect_within(const CaseConfig& c, const SampleLimits& l) {
  const std::string line = to_string(c);
  EXPECT_TRUE(is_valid_config(c)) << line;
  EXPECT_TRUE(l.rows.contains(c.B) && l.query_heads.contains(c.H) && l.group.contains(c.HV / c.H)) << line;
  EXPECT_TRUE(l.K.contains(c.K) && l.V.contains(c.V) && l.ring_length.contains(c.L)) << line;
  EXPECT_TRUE(l.tokens.contains(c.steps)) << line;
  EXPECT_TRUE(l.extra_slots.contains(c.slots - c.B)) << line;
  EXPECT_TRUE(l.strided || !c.envelope) << line;
  // Over budget only when no size can be halved within the limits any more.
  const auto at_floor = [](int64_t x, int64_t lo) { return x < 2 * std::max<int64_t>(lo, 1); };
  const bool floors = c.B == 1 && c.HV == c.H && at_floor(c.steps, l.tokens.lo) && at_floor(c.K, l.K.lo) &&
                      at_floor(c.V, l.V.lo);
  EXPECT_TRUE(rollout_work(c) <= l.work_budget || floors) << line;
}

TEST(SampleSpace, CasesStayWithinEverySuitesLimits) {
  SampleLimits compact = limits::reference_suites(8, 2e6);
  compact.strided = false;
  compact.float_dtypes = {ScalarType::BFloat16};
  compact.index_dtypes = {ScalarType::Int64};
  for (const SampleLimits& l : {limits::gpu_suites(), limits::gpu_suites(2e5), limits::reference_suites(),
                                limits::reference_suites(1, 2e6), limits::check_cases(3e7), limits::reference_fuzzing(),
                                compact}) {
    for (uint64_t i = 0; i < 2000; ++i) {
      const CaseConfig c = draw_case(default_operator(), 7, i, l);
      expect_within(c, l);
      if (l.float_dtypes.size() == 1) {
        EXPECT_EQ(c.state_dtype, ScalarType::BFloat16);
      }
      if (l.index_dtypes.size() == 1) {
        EXPECT_EQ(c.index_dtype, ScalarType::Int64);
      }
    }
  }
}

TEST(SampleSpace, CallsStayWithinTheirLimits) {
  for (const SampleLimits& l : {limits::contract_calls(), limits::sweep_calls()}) {
    for (uint64_t i = 0; i < 2000; ++i) {
      CounterChooser ch(3, stream::kContractCalls, i);
      const CallConfig c = sample_call_config(ch, l);
      EXPECT_TRUE(l.rows.contains(c.B) && l.query_heads.contains(c.H) && l.group.contains(c.group)) << to_string(c);
      EXPECT_TRUE(l.K.contains(c.K) && l.V.contains(c.V) && l.ring_length.contains(c.L)) << to_string(c);
    }
  }
}

// The engine draws an operator's cases and calls through its description only: an operator
// that points at another sample space gets that space's draws from every drawing front-end
// (the counter draws of the CPU and backend suites), and each operator of the table has one.
TEST(SampleSpace, DrawsComeFromTheOperatorsDescription) {
  for (const OperatorDescription* op : operators()) {
    ASSERT_NE(op->sample_case, nullptr) << op->name;
    ASSERT_NE(op->sample_call, nullptr) << op->name;
    for (uint64_t i = 0; i < 50; ++i)
      EXPECT_TRUE(is_valid_config(op->fit_case(draw_case(*op, 5, i, limits::check_cases(2e6))))) << op->name;
  }
  OperatorDescription own = default_operator();
  own.sample_case = [](Chooser& c, const SampleLimits&) {
    CaseConfig fixed;
    fixed.B = c.integer(1, 1);
    fixed.H = fixed.HV = 1;
    fixed.K = fixed.V = 4;
    fixed.L = 3;
    fixed.slots = 2;
    fixed.seed = 77;
    return fixed;
  };
  for (uint64_t i = 0; i < 5; ++i) {
    const CaseConfig drawn = draw_case(own, 9, i, limits::check_cases(2e6));
    EXPECT_EQ(drawn.K, 4) << to_string(drawn);
    EXPECT_EQ(drawn.seed, 77u) << to_string(drawn);
    // The backend draws pin K and V in the limits they pass; this space ignores them.
    const CaseConfig backend = draw_backend_case(own, 9, i, limits::check_cases(2e6), Envelope{});
    EXPECT_EQ(backend.K, 4) << to_string(backend);
    EXPECT_EQ(backend.seed, 77u) << to_string(backend);
  }
}

TEST(SampleSpace, LimitsThatExcludeEveryOptionAreRefused) {
  SampleLimits l = limits::gpu_suites();
  l.K = {3, 3};  // no power of two
  EXPECT_THROW(draw_case(default_operator(), 1, 0, l), std::invalid_argument);
}

// The backend suites' draws: K and V uniform over what the region allows (an envelope of
// K >= 32 once collapsed its draws onto K = 32), a production shape in one case of five, each
// flag both on and off in every block of 20, nothing outside the region.
TEST(BackendCases, HeadDimsAreUniformInsideTheRegion) {
  Envelope region;
  region.k_min = 32;
  for (double budget : {2e5, 2e7}) {
    std::map<int64_t, int> ks, vs;
    constexpr int kCases = 1000;
    for (uint64_t i = 0; i < kCases; ++i) {
      const CaseConfig c = draw_backend_case(default_operator(), 1, i, limits::check_cases(budget), region);
      EXPECT_TRUE(is_valid_config(c) && region.excludes(c).empty()) << to_string(c);
      if (is_production_index(i)) continue;
      ++ks[c.K], ++vs[c.V];
    }
    const int drawn = kCases - kCases / static_cast<int>(kProductionEvery);
    EXPECT_EQ(ks.size(), 3u);  // 32, 64, 128
    for (const auto& [k, n] : ks) EXPECT_NEAR(n, drawn / 3.0, drawn * 0.06) << "K=" << k << " budget " << budget;
    EXPECT_EQ(vs.size(), 8u);  // 1 .. 128
    for (const auto& [v, n] : vs) EXPECT_NEAR(n, drawn / 8.0, drawn * 0.05) << "V=" << v << " budget " << budget;
  }
}

TEST(BackendCases, OneCaseInFiveIsAProductionShape) {
  for (double budget : {2e5, 3e6, 2e7}) {
    int grouped = 0, equal = 0;
    for (uint64_t i = 0; i < 200; i += kProductionEvery) {
      const CaseConfig c = draw_backend_case(default_operator(), 5, i, limits::check_cases(budget), Envelope{});
      EXPECT_EQ(c.K, 128) << to_string(c);
      EXPECT_EQ(c.V, 128) << to_string(c);
      EXPECT_TRUE(c.HV == c.H ? c.H >= 4 : (c.H == 2 && c.HV == 16)) << to_string(c);
      (c.HV == c.H ? equal : grouped) += 1;
      EXPECT_LE(rollout_work(c), std::max(budget, kProductionWork)) << to_string(c);
    }
    EXPECT_EQ(grouped, 20);
    EXPECT_EQ(equal, 20);
  }
  // A region without 128 gets the nearest size it allows.
  Envelope small;
  small.k_max = small.v_max = 64;
  EXPECT_EQ(draw_backend_case(default_operator(), 5, 0, limits::check_cases(2e5), small).K, 64);
}

TEST(BackendCases, EveryFlagIsBothOnAndOffInEveryTwentyCases) {
  for (uint64_t seed : {1, 2, 3}) {
    for (uint64_t block = 0; block < 10; ++block) {
      std::set<bool> ff, lb, l2;
      for (uint64_t i = block * kStratumSize; i < (block + 1) * kStratumSize; ++i) {
        const CaseConfig c = draw_backend_case(default_operator(), seed, i, limits::check_cases(2e7), Envelope{});
        ff.insert(c.force_flush), lb.insert(c.lower_bound.has_value()), l2.insert(c.l2norm);
      }
      EXPECT_EQ(ff.size(), 2u) << "seed " << seed << " block " << block;
      EXPECT_EQ(lb.size(), 2u) << "seed " << seed << " block " << block;
      EXPECT_EQ(l2.size(), 2u) << "seed " << seed << " block " << block;
    }
  }
}

TEST(BackendCases, DtypesStayInTheRegionAndPreciseCasesHaveFloat32Outputs) {
  Envelope region;
  region.act_dtypes = KDA_DT_BFLOAT16;
  region.ring_dtypes = KDA_DT_BFLOAT16 | KDA_DT_FLOAT32;
  region.index_dtypes = KDA_DT_INT32;
  region.strided = false;
  region.l_max = 8;
  for (uint64_t i = 0; i < 300; ++i) {
    const CaseConfig c = draw_backend_case(default_operator(), 9, i, limits::check_cases(2e6), region);
    EXPECT_TRUE(region.excludes(c).empty()) << to_string(c) << ": " << region.excludes(c);
    if (is_precise_index(i)) {
      EXPECT_EQ(c.state_dtype, ScalarType::Float32) << to_string(c);
      EXPECT_EQ(c.ring_dtype, ScalarType::Float32) << to_string(c);
      EXPECT_EQ(c.out_dtype, ScalarType::Float32) << to_string(c);
    }
  }
  Envelope none;
  none.out_dtypes = 0;
  EXPECT_THROW(draw_backend_case(default_operator(), 9, 0, limits::check_cases(2e6), none), std::invalid_argument);
}

TEST(CatalogMessage, RendersTemplatesFromTheCatalogOnly) {
  EXPECT_EQ(catalog_message("R6"), find_catalog_entry("R6")->message);
  const std::string v19 =
      catalog_message("V19", {{"(B, 1, HV, V)", tuple_repr({3, 1, 4, 128})}, {"tuple(out.shape)", tuple_repr({7})}});
  EXPECT_EQ(catalog_ids_matching(v19), std::vector<std::string>{"V19"});
  EXPECT_NE(v19.find("(3, 1, 4, 128)"), std::string::npos);
  EXPECT_NE(v19.find("(7,)"), std::string::npos);
  EXPECT_THROW(catalog_message("V99"), std::logic_error);
  EXPECT_THROW(catalog_message("V19", {{"(B, 1, HV, V)", "x"}}), std::logic_error);  // a value missing
  EXPECT_THROW(catalog_message("R6", {{"H", 2}}), std::logic_error);               // a value too many
}

}  // namespace
}  // namespace kda::engine
