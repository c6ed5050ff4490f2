// The error catalog as data: one entry per id, in check order, with patterns that tell the
// entries apart, the harness's fixed messages equal to the code's, and a Markdown section each.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "contract/error_catalog_export.hpp"
#include "engine/description/operator.hpp"

namespace kda::test {
namespace {

std::vector<std::string> expected_ids() {
  std::vector<std::string> ids{"W1", "W2"};
  for (int i = 1; i <= 22; ++i) ids.push_back(fmt::format("V{}", i));
  for (int i = 1; i <= 10; ++i) ids.push_back(fmt::format("R{}", i));
  // gdn_replayssm's own texts; G2, G6, G11, G13 and G16 raise V2, V8, V20, V22 and R4.
  // Its KDA path (kda_triton_replayssm) adds K17-K19 before G17 and the pre-decayed block's
  // P2-P9 after G29 (P1 is G29).
  for (int i = 1; i <= 32; ++i) {
    if (i == 17)
      for (int k = 17; k <= 19; ++k) ids.push_back(fmt::format("K{}", k));
    if (i != 2 && i != 6 && i != 11 && i != 13 && i != 16) ids.push_back(fmt::format("G{}", i));
    if (i == 29)
      for (int p = 2; p <= 9; ++p) ids.push_back(fmt::format("P{}", p));
  }
  for (const char* x : {error_id::kViewA, error_id::kFloatDtype, error_id::kIndexDtype, error_id::kRingSlots,
                        error_id::kStrides, error_id::kExtents, error_id::kBackendCpu, error_id::kBackendCuda,
                        "X-GDN-RING-RANK", "X-GDN-EMPTY-HEADS", "X-GDN-NK", "X-GDN-GATE-STRIDES",
                        "X-GDN-DEVICE", error_id::kSlotIndex, error_id::kWritePos, error_id::kCacheBase, error_id::kDuplicateSlot})
    ids.push_back(x);
  // fla_recurrent_kda's extensions (fla checks almost nothing itself), in its check order.
  for (const char* x : {"X-FLA-NEG-EIGVAL", "X-FLA-RANK", "X-FLA-EMPTY", "X-FLA-HEADS", "X-FLA-SHAPE", "X-FLA-OUT-SHAPE",
                        "X-FLA-INDICES", "X-FLA-ACCEPTED", "X-FLA-DTYPE", "X-FLA-CONTIGUOUS", "X-FLA-ACCEPTED-VALUE"})
    ids.push_back(x);
  return ids;
}

TEST(ContractCatalog, OneEntryPerIdInCheckOrder) {
  std::vector<std::string> ids;
  for (const auto& e : error_catalog()) ids.push_back(e.id);
  EXPECT_EQ(ids, expected_ids());
  EXPECT_EQ(error_catalog().size(), 100u);
}

TEST(ContractCatalog, OriginsAndFieldsAreFilledIn) {
  for (const auto& e : error_catalog()) {
    EXPECT_EQ(e.is_extension(), e.id.rfind("X-", 0) == 0) << e.id;
    for (const std::string* f : {&e.source, &e.check, &e.message, &e.message_pattern, &e.trigger, &e.fix,
                                 &e.documentation, &e.trigger_scenarios, &e.common_situations, &e.example_fix,
                                 &e.validation_code, &e.type_guard, &e.background_tag})
      EXPECT_FALSE(f->empty()) << e.id;
    EXPECT_FALSE(e.solutions.empty()) << e.id;
    EXPECT_FALSE(e.prevention_tips.empty()) << e.id;
    EXPECT_FALSE(e.tags.empty()) << e.id;
    if (e.is_extension()) {
      EXPECT_EQ(e.message.rfind("[kda-harness] ", 0), 0u) << e.id;
    }
  }
}

// A fixed message matches its own pattern and no other.
TEST(ContractCatalog, FixedMessagesMatchExactlyTheirOwnPattern) {
  for (const auto& e : error_catalog()) {
    if (e.is_template()) continue;
    EXPECT_EQ(catalog_ids_matching(e.message), std::vector<std::string>{e.id}) << e.id;
  }
}

// Patterns are anchored to the whole message: a message with a byte more or less matches none.
TEST(ContractCatalog, PatternsRejectNearMisses) {
  EXPECT_EQ(catalog_ids_matching("`out` must have shape (3, 1, 4, 128) (got out.shape=(3, 4, 128))."),
            std::vector<std::string>{"V19"});
  EXPECT_TRUE(catalog_ids_matching("`out` must have shape (3, 1, 4, 128) (got out.shape=(3, 4, 128))").empty());
  EXPECT_TRUE(catalog_ids_matching("`write_pos` must have shape (3)." ).empty());
  EXPECT_TRUE(catalog_ids_matching(" `k_cache` must have shape [slots, H, L, K].").empty());
  EXPECT_TRUE(catalog_ids_matching("`k_cache` must have shape [slots, HV, L, K].").empty());
  EXPECT_EQ(catalog_ids_matching("`ssm_state_indices` must have shape [B] (got (); expected (3,))."),
            std::vector<std::string>{"V11"});
}

TEST(ContractCatalog, SeedErrorCarriesItsThreeTriggers) {
  const CatalogEntry* r6 = find_catalog_entry("R6");
  ASSERT_NE(r6, nullptr);
  EXPECT_EQ(r6->message, "`k_cache` must have shape [slots, H, L, K].");
  EXPECT_EQ(r6->message_pattern, "`k_cache` must have shape \\[slots, H, L, K\\]\\.");  // the seed's pattern
  for (const char* needle : {"HV heads instead of H", "length differs from d_cache's", "tensor parallelism"})
    EXPECT_NE(r6->trigger_scenarios.find(needle), std::string::npos) << needle;
}

// The records in the seed schema: contract/tests/catalog_records_test.cpp.

// The catalog's "raised by" is each operator's `raises`: every id an operator lists is an entry
// (in catalog order), and every entry is raised by some operator.
TEST(ContractCatalog, EveryEntryIsRaisedAndEveryRaisedIdIsAnEntry) {
  std::vector<std::string> order;
  for (const auto& e : error_catalog()) order.push_back(e.id);
  for (const engine::OperatorDescription* op : engine::operators()) {
    EXPECT_FALSE(op->raises.empty()) << op->name;
    std::size_t at = 0;
    for (std::string_view id : op->raises) {
      const auto it = std::find(order.begin(), order.end(), id);
      ASSERT_NE(it, order.end()) << op->name << " raises " << id << ", which is no catalog entry";
      const auto index = static_cast<std::size_t>(it - order.begin());
      EXPECT_GE(index, at) << op->name << ": " << id << " out of catalog order";
      at = index;
    }
  }
  for (const auto& e : error_catalog())
    EXPECT_FALSE(engine::operators_raising(e.id).empty()) << e.id << ": no operator raises it";
}

TEST(ContractCatalog, MarkdownHasASectionPerEntry) {
  const std::string md = catalog_markdown(&engine::operators_raising);
  for (const auto& e : error_catalog()) EXPECT_NE(md.find("\n## " + e.id + "\n"), std::string::npos) << e.id;
}

}  // namespace
}  // namespace kda::test
