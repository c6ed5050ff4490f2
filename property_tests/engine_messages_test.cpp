// What the engine says about a failure: a footprint violation names the tensor, the element,
// its slot and head, its values and why the step may not write it; the worst element of a
// failing block says whether a NaN was left in place (never written) or written; a comparison
// says, in torch.testing.assert_close's words, how many blocks are off and whether a figure is
// relative or absolute; a report's token count agrees with the steps of its case.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "contract/validate.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/row_plan.hpp"
#include "engine/reports/case_report.hpp"
#include "engine/reports/element_note.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/footprint.hpp"
#include "operators/replayssm_family/row_plan.hpp"
#include "reference/compare.hpp"

namespace kda::engine {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A case with a slot that no row names (slots > rows), every row appending at cursor 0.
CaseTensors unnamed_slot_case() {
  CaseConfig c = parse_case_config("B=2 H=1 HV=2 K=4 V=4 L=3 slots=4 pad=0 flush=0 rcur=0 steps=1 seed=3");
  return materialize_replayssm_case(c);
}

int64_t unnamed_slot(const CaseTensors& t) {
  for (int64_t s = 0; s < t.config.slots; ++s) {
    bool named = false;
    for (int64_t row = 0; row < t.config.B; ++row) named = named || t.ssm_state_indices.get_linear(row) == s;
    if (!named) return s;
  }
  return -1;
}

TEST(FootprintMessage, NamesTensorElementSlotHeadValuesAndWhy) {
  CaseTensors t = unnamed_slot_case();
  const Dims d = validate(t.args(), kda::Backend::Cpu);
  const auto plans = plan_rows(t.args(), d);
  const WrittenBytes before = snapshot_written(t.args());
  const int64_t slot = unnamed_slot(t);
  ASSERT_GE(slot, 0);
  t.initial_state.set({slot, 1, 2, 3}, 0.5);
  const std::string m = footprint_violation(before, t.args(), d, plans);
  EXPECT_TRUE(contains(m, fmt::format("initial_state[{}, 1, 2, 3] (slot {}, value head 1)", slot, slot))) << m;
  EXPECT_TRUE(contains(m, "to 0.5")) << m;
  EXPECT_TRUE(contains(m, fmt::format("no accepted row names slot {} this step", slot))) << m;
}

TEST(FootprintMessage, ARecordOtherThanTheCursorsIsNamedWithTheRowThatAppends) {
  CaseTensors t = unnamed_slot_case();
  const Dims d = validate(t.args(), kda::Backend::Cpu);
  const auto plans = plan_rows(t.args(), d);
  ASSERT_FALSE(plans[0].flush);
  const WrittenBytes before = snapshot_written(t.args());
  const int64_t other = (plans[0].cursor + 1) % d.L;
  t.k_cache.set({plans[0].slot, 0, other, 0}, 0.25);
  const std::string m = footprint_violation(before, t.args(), d, plans);
  EXPECT_TRUE(contains(m, fmt::format("k_cache[{}, 0, {}, 0] (slot {}, query head 0, record {})", plans[0].slot, other,
                                      plans[0].slot, other)))
      << m;
  EXPECT_TRUE(contains(m, fmt::format("row 0 appends record {} of slot {}", plans[0].cursor, plans[0].slot))) << m;
}

// The footprint check passes every byte of the records the rows append, and names a write to
// the element right after one of them or right before another (all in one 4 KiB chunk: the
// check steps around the allowed byte ranges there).
TEST(FootprintMessage, TheAppendedRecordsPassAndTheElementsAroundThemAreNamed) {
  CaseTensors t = unnamed_slot_case();
  const Dims d = validate(t.args(), kda::Backend::Cpu);
  const auto plans = plan_rows(t.args(), d);
  ASSERT_EQ(plans[0].cursor, 0);
  ASSERT_FALSE(plans[0].flush);
  const WrittenBytes before = snapshot_written(t.args());
  for (const RowPlan& p : plans)
    for (int64_t hv = 0; hv < d.HV; ++hv)
      for (int64_t i = 0; i < d.V; ++i) t.d_cache.set({p.slot, hv, p.cursor, i}, 1.0 + static_cast<double>(i));
  EXPECT_EQ(footprint_violation(before, t.args(), d, plans), "");

  const int64_t slot = plans[0].slot;
  CaseTensors past = t;
  past.d_cache.set({slot, 0, 1, 0}, 2.0);  // the first element after record 0 of value head 0
  std::string m = footprint_violation(before, past.args(), d, plans);
  EXPECT_TRUE(contains(m, fmt::format("d_cache[{}, 0, 1, 0] (slot {}, value head 0, record 1)", slot, slot))) << m;
  CaseTensors ahead = t;
  ahead.d_cache.set({slot, 0, d.L - 1, d.V - 1}, 2.0);  // the last element before record 0 of value head 1
  m = footprint_violation(before, ahead.args(), d, plans);
  EXPECT_TRUE(contains(m, fmt::format("d_cache[{}, 0, {}, {}]", slot, d.L - 1, d.V - 1))) << m;
}

TEST(WorstElement, TellsANaNLeftInPlaceFromOneWritten) {
  CaseTensors t = unnamed_slot_case();
  HostTensor expected = t.out;
  for (int64_t i = 0; i < expected.numel(); ++i) expected.set_linear(i, 1.0);
  HostTensor actual = expected;
  const WrittenBytes poisoned = snapshot_written(t.args());  // out starts as NaN bytes
  // Element [1, 0, 0, 2] left as the poison, [1, 0, 1, 3] written as NaN over a value.
  std::memcpy(actual.storage().data(), t.out.storage().data(), actual.storage().size());
  const std::string left = worst_element(expected, actual, &poisoned.of("out"), 1, 0, 0);
  EXPECT_TRUE(contains(left, "expected 1, got")) << left;
  EXPECT_TRUE(contains(left, "never written")) << left;

  HostTensor written = expected;
  std::vector<unsigned char> before(written.storage().size());
  std::memcpy(before.data(), written.storage().data(), before.size());
  written.set({1, 0, 1, 3}, std::nan(""));
  const std::string m = worst_element(expected, written, &before, 1, 0, 1);
  EXPECT_TRUE(contains(m, "there the greatest absolute difference: nan at index (1, 0, 1, 3)")) << m;
  EXPECT_TRUE(contains(m, "written as NaN")) << m;

  written.set({1, 0, 1, 3}, 3.0);
  const std::string off = worst_element(expected, written, &before, 1, 0, 1);
  EXPECT_TRUE(contains(off, "there the greatest absolute difference: 2.000e+00 at index (1, 0, 1, 3) (expected 1, got 3)"))
      << off;
  EXPECT_EQ(worst_element(expected, expected, &before, 1, 0, 1), "");
}

// A ring of one scalar per record (gdn_replayssm's g_cache [slots, HV, L]) has three dims:
// its worst element is named by three indices, never read past its shape.
TEST(WorstElement, NamesTheElementOfAThreeDimensionalRing) {
  HostTensor expected(ScalarType::Float32, {2, 3, 4});
  for (int64_t i = 0; i < expected.numel(); ++i) expected.set_linear(i, 1.0);
  HostTensor actual = expected;
  actual.set({1, 2, 3}, 4.0);
  EXPECT_EQ(worst_element(expected, actual, nullptr, 1, 2, 3),
            "there the greatest absolute difference: 3.000e+00 at index (1, 2, 3) (expected 1, got 4)");
  EXPECT_EQ(worst_element(expected, actual, nullptr, 1, 2, -1),
            "there the greatest absolute difference: 3.000e+00 at index (1, 2, 3) (expected 1, got 4)");
  EXPECT_EQ(worst_element(expected, actual, nullptr, 1, 2, 2), "");
}

TEST(ComparisonMessage, SaysHowManyBlocksAreOffAndThatTheFigureIsRelative) {
  const std::vector<double> expected = {1, 0, 1, 0, 1, 0, 1, 0}, actual = {1, 0, 1, 0.5, 1, 0, 1, 0};
  reference::Comparison c = reference::compare(expected, actual, 2, 1e-3);
  c.where = "out[1, 0, 0] (token 0 row 1: slot 1, value head 0)";
  EXPECT_EQ(c.describe(),
            "Mismatched blocks: 1 / 4 (25.0%); greatest relative difference (normwise, by block): 5.000e-01 (up to "
            "1.000e-03 allowed) at out[1, 0, 0] (token 0 row 1: slot 1, value head 0)");
  const reference::Comparison ok = reference::compare(expected, expected, 2, 1e-3);
  EXPECT_TRUE(contains(ok.describe(), "all 4 blocks within bounds; greatest relative difference (normwise, by block): "
                                      "0.000e+00 (up to 1.000e-03 allowed) at block 0"))
      << ok.describe();
}

TEST(CaseReportMessage, TokensRunAgreeWithTheCasesSteps) {
  CaseReport r;
  r.config = parse_case_config("B=2 H=1 HV=2 K=4 V=4 L=3 slots=4 steps=9 seed=3");
  r.tokens = 1;
  r.failure = "token 0: out differs";
  EXPECT_EQ(r.tokens_run(), "tokens 1 of 9 (stopped at the first failing token)");
  EXPECT_TRUE(contains(r.summary(), "tokens 1 of 9 (stopped at the first failing token)")) << r.summary();
  r.tokens = 9;
  r.failure.clear();
  EXPECT_EQ(r.tokens_run(), "tokens 9");
}

// A report's replay line names its operator in the config line (op=NAME) unless it is the
// default (the table's first, default_operator()), or names none; never --op beside it.
TEST(CaseReportMessage, TheReplayLineNamesAnOperatorOtherThanTheDefault) {
  CaseReport r;
  r.config = parse_case_config("B=2 H=1 HV=2 K=4 V=4 L=3 slots=4 steps=1 seed=3");
  r.backend = "reference", r.against = "truth";
  EXPECT_FALSE(contains(r.replay(), "op=")) << r.replay();
  r.op = std::string(default_operator().name);
  EXPECT_FALSE(contains(r.replay(), "op=")) << r.replay();
  for (const OperatorDescription* op : operators()) {
    r.op = std::string(op->name);
    EXPECT_FALSE(contains(r.replay(), "--op")) << r.replay();
    if (op == &default_operator()) continue;
    EXPECT_TRUE(contains(r.replay(), "case \"op=" + r.op + " B=2")) << r.replay();
  }
}

}  // namespace
}  // namespace kda::engine
