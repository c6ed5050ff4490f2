// CPU test of the peer-table reader: the header picks the columns, other lines are skipped.
#include "bench/peer_table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace kda::bench {
namespace {

const char* kTable =
    "# a title\n"
    "Some text | with a bar.\n"
    "\n"
    "| H/HV | state | L | B | kind | ours us | Triton us | speedup |\n"
    "|---|---|---|---|---|---|---|---|\n"
    "| 32/32 | f32 | 8 | 256 | append | 253.1 | 240.3 | 0.95x |\n"
    "| 2/16 | bf16 | 1 | 1 | plain | 11.5 | 25.2 | 2.20x |\n"
    "| 2/16 | bf16 | 4 | 1 | flush | 13.9 | - | - |\n"
    "\n"
    "| other | table |\n"
    "| 1/1 | f32 |\n";

TEST(PeerTable, ReadsTheNamedColumnOfTheFirstTable) {
  std::istringstream in(kTable);
  const std::vector<PeerRow> rows = parse_peer_table(in, "Triton us");
  ASSERT_EQ(rows.size(), 2u);  // the row with "-" has no time
  EXPECT_EQ(rows[0].H, 32);
  EXPECT_EQ(rows[0].HV, 32);
  EXPECT_EQ(rows[0].state, "f32");
  EXPECT_EQ(rows[0].L, 8);
  EXPECT_EQ(rows[0].B, 256);
  EXPECT_EQ(rows[0].kind, "append");
  EXPECT_DOUBLE_EQ(rows[0].us, 240.3);
  const auto p = find_peer(rows, 2, 16, 1, 1, "bf16", "plain");
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->us, 25.2);
  EXPECT_FALSE(find_peer(rows, 2, 16, 4, 1, "bf16", "flush").has_value());
}

TEST(PeerTable, AnotherColumnOrNoneGivesOtherRows) {
  std::istringstream in(kTable);
  EXPECT_DOUBLE_EQ(parse_peer_table(in, "ours us").at(0).us, 253.1);
  std::istringstream again(kTable);
  EXPECT_TRUE(parse_peer_table(again, "no such column").empty());
}

}  // namespace
}  // namespace kda::bench
