// The operator's own words (engine/description/operator_words.hpp): an operator without a ring reads no
// ring, ring length, cursor, flush or force_flush in its config lines, summaries, envelope or
// case statistics; one with a ring reads them all. Its shorter config line replays the same case.
#include <gtest/gtest.h>

#include <regex>

#include "engine/description/operator_words.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/reports/case_report.hpp"

namespace kda::engine {
namespace {

// Words of a ring in text: a config key, or the envelope's and statistics' names for one.
const std::regex kRingWords(R"((^|\s)(L|ring|ff|flush|rcur|circ|pgc)=|flushes|appends|ring mode|force_flush|L<=|\bring\b|cursor)");

std::vector<CaseConfig> drawn(const OperatorDescription& op, int n) {
  std::vector<CaseConfig> out;
  for (int i = 0; i < n; ++i)
    out.push_back(op.fit_case(draw_backend_case(op, 1, static_cast<uint64_t>(i), limits::check_cases(2e7), Envelope{})));
  return out;
}

TEST(OperatorWords, DrivenByTheOperatorsTensors) {
  for (const OperatorDescription* op : operators()) {
    EXPECT_EQ(has_ring(*op), takes(*op, "d_cache")) << op->name;
    EXPECT_EQ(has_force_flush(*op), takes(*op, "force_flush")) << op->name;
  }
  EXPECT_FALSE(has_ring(find_operator("kda_packed_decode")));
  EXPECT_TRUE(has_ring(find_operator("kda_replayssm")));
}

TEST(OperatorWords, AConfigLineWithoutTheRingReplaysTheSameCase) {
  for (const OperatorDescription* op : operators())
    for (const CaseConfig& c : drawn(*op, 200)) {
      const std::string line = config_line(c, *op);
      const CaseLine read = parse_case_line(line);
      EXPECT_EQ(read.op, op == &default_operator() ? "" : op->name) << line;  // op= names all but the default
      EXPECT_EQ(op->fit_case(read.config), c) << op->name << ": " << line;
      EXPECT_EQ(std::regex_search(line, kRingWords), has_ring(*op)) << op->name << ": " << line;
    }
}

TEST(OperatorWords, SummariesEnvelopeAndStatisticsSpeakOfWhatTheOperatorHas) {
  for (const OperatorDescription* op : operators()) {
    CaseReport r;
    r.op = std::string(op->name);
    r.config = drawn(*op, 1).front();
    r.backend = "reference", r.against = "reference";
    r.tokens = r.config.steps, r.flushes = 1;
    CaseStats stats;
    for (const CaseConfig& c : drawn(*op, 50)) stats.add(c);
    for (const std::string& text : {r.summary(), r.replay(), Envelope{}.describe(*op), stats.describe(*op),
                                    invalid_rows_claim(InvalidRows::Raise, false, *op)})
      EXPECT_EQ(std::regex_search(text, kRingWords), has_ring(*op)) << op->name << ":\n" << text;
  }
}

}  // namespace
}  // namespace kda::engine
