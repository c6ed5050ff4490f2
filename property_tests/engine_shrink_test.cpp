// Shrinking (engine/driver/shrink.hpp) and failure causes (engine/reports/failure_cause.hpp): a failure that
// depends on a few dimensions shrinks to exactly their threshold and the least of every other,
// never past what the operator takes; causes group failures of one kind whatever their numbers.
#include <gtest/gtest.h>

#include "engine/reports/failure_cause.hpp"
#include "engine/description/operator.hpp"
#include "engine/driver/shrink.hpp"

namespace kda::engine {
namespace {

CaseConfig big() {
  CaseConfig c;
  c.B = 6, c.H = 4, c.HV = 16, c.K = 128, c.V = 64, c.L = 12, c.slots = 9, c.steps = 33, c.envelope = true;
  return c;
}

TEST(Shrink, ReachesTheThresholdsOfWhatTheFailureNeedsAndTheLeastOfTheRest) {
  // "fails" when K >= 16 with two rows and a ring of 3: everything else goes to its least.
  const auto fails = [](const CaseConfig& c) { return c.K >= 16 && c.B >= 2 && c.L >= 3; };
  const std::optional<Shrunk> s = shrink_case(big(), default_operator(), fails, 200);
  ASSERT_TRUE(s);
  const CaseConfig& c = s->config;
  EXPECT_EQ(c.K, 16);
  EXPECT_EQ(c.B, 2);
  EXPECT_EQ(c.L, 3);
  EXPECT_EQ(c.steps, 1);
  EXPECT_EQ(c.H, 1);
  EXPECT_EQ(c.HV, 1);
  EXPECT_EQ(c.V, 1);
  EXPECT_EQ(c.slots, 2);
  EXPECT_FALSE(c.envelope);
  EXPECT_TRUE(no_larger(c, big()));
  EXPECT_TRUE(fails(c));
}

TEST(Shrink, StaysWhereTheOperatorsContractHoldsAndWithinItsBudget) {
  // gdn_replayssm lifts K below 32 back up (G32): a shrunk GDN case keeps K = 32.
  CaseConfig c = big();
  c.gate_per_head = true, c.index_dtype = ScalarType::Int32;
  const OperatorDescription& gdn = find_operator("gdn_replayssm");
  const std::optional<Shrunk> s = shrink_case(c, gdn, [](const CaseConfig&) { return true; }, 200);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->config.K, 32);
  EXPECT_EQ(s->config, gdn.fit_case(s->config));
  // Nothing fails smaller: nothing to report; and the reruns stop at the budget.
  int64_t runs = 0;
  EXPECT_FALSE(shrink_case(big(), default_operator(), [&runs](const CaseConfig&) { return ++runs, false; }, 7));
  EXPECT_EQ(runs, 7);
}

TEST(FailureCause, GroupsFailuresOfOneKindWhateverTheirNumbers) {
  CaseReport a, b, c;
  a.failure = "token 0: d_cache[0, 0, 3, 0] (slot 0, value head 0, record 3) changed from -nan to 1.10156: row 0 flushes "
              "slot 0: no ring record may change";
  b.failure = "token 7: d_cache[2, 1, 0, 5] (slot 2, value head 1, record 0) changed from 0.25 to -3e-05: row 4 flushes "
              "slot 2: no ring record may change";
  c.failure = "token 0: the backend refused a valid call: K=64 is not supported";
  EXPECT_EQ(failure_cause(a), failure_cause(b));
  EXPECT_NE(failure_cause(a), failure_cause(c));
  EXPECT_EQ(failure_cause(a), "token #: d_cache[..] changed from # to #: row # flushes slot #: no ring record may change");
  CaseReport g17, g23;
  g17.failure = "refused the call (G17) but changed out[0, 0, 1, 2] (row 0, value head 1) from nan to 0";
  g23.failure = "refused the call (G23) but changed out[2, 0, 0, 0] (row 2, value head 0) from nan to 0";
  EXPECT_NE(failure_cause(g17), failure_cause(g23));  // another check: another cause
  EXPECT_EQ(failure_cause(g17), "refused the call (G17) but changed out[..] from # to #");
  CaseReport numeric;
  numeric.state.pass = false, numeric.state.blocks = 4, numeric.state.tolerance = 1e-3, numeric.state.worst_error = 1;
  EXPECT_EQ(failure_cause(numeric), "initial_state: values outside the tolerance");
  EXPECT_EQ(failure_cause(CaseReport{}), "");
}

}  // namespace
}  // namespace kda::engine
