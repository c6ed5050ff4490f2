// `kda-harness errors --records` against the seed record (tests/seed_record.json, a copy of
// ../shared/seed/000_033b391e59f1a0f3.txt): every record has the seed's fields in the seed's
// order with the seed's JSON types and envelope, and true source facts: a documented record's
// line holds SGLang's `raise` (of exactly the fixed message, over as many lines as it spans),
// an extension's line holds its check in this repository's file (read here from the source
// tree).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "contract/error_catalog.hpp"
#include "contract/error_catalog_export.hpp"

namespace kda::test {
namespace {

nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::ordered_json::parse(in);
}

const nlohmann::ordered_json& seed() {
  static const nlohmann::ordered_json s = read_json(KDA_SEED_RECORD);
  return s;
}

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) lines.push_back(l);
  if (!text.empty() && text.back() == '\n') lines.emplace_back();
  return lines;
}

// The string literals of the Python statement that starts at code[first], joined as Python
// joins adjacent literals: a `raise` whose message is split over several lines reads whole.
std::string literal_text(const std::vector<std::string>& code, std::size_t first) {
  std::string text;
  int depth = 0;
  for (std::size_t i = first; i < code.size(); ++i) {
    const std::string& line = code[i];
    for (std::size_t k = 0; k < line.size(); ++k) {
      if (line[k] == '"') {
        const std::size_t close = line.find('"', k + 1);
        if (close == std::string::npos) return text + "<unclosed literal>";
        text += line.substr(k + 1, close - k - 1);
        k = close;
      } else if (line[k] == '(') {
        ++depth;
      } else if (line[k] == ')') {
        --depth;
      }
    }
    if (depth <= 0) break;
  }
  return text;
}

// Key and JSON type of each field, in order. A JSON integer is one type whether the parser
// stored it signed or unsigned.
std::vector<std::pair<std::string, nlohmann::json::value_t>> fields(const nlohmann::ordered_json& j) {
  std::vector<std::pair<std::string, nlohmann::json::value_t>> f;
  for (const auto& [key, value] : j.items())
    f.emplace_back(key, value.is_number_integer() ? nlohmann::json::value_t::number_integer : value.type());
  return f;
}

// Which operators raise an entry is the operator table's word (engine::operators_raising), a
// layer above this one: here a stand-in, one operator per entry.
std::vector<std::string> one_operator(std::string_view) { return {"some_op"}; }

TEST(CatalogRecords, EnvelopeFieldsAndTypesAreTheSeeds) {
  const auto records = catalog_records(&one_operator);
  ASSERT_EQ(records.size(), error_catalog().size());
  for (const auto& env : records) {
    EXPECT_EQ(fields(env), fields(seed()));
    EXPECT_EQ(env["datasetVersion"].type(), nlohmann::json::value_t::string);
    EXPECT_EQ(fields(env["record"]), fields(seed()["record"])) << env["record"]["slug"];
    for (const char* list : {"solutions", "preventionTips", "tags"})
      for (const auto& item : env["record"][list]) EXPECT_TRUE(item.is_string()) << list;
  }
}

TEST(CatalogRecords, IdsSlugsAndTags) {
  std::set<std::string> ids, slugs;
  const std::regex hex16("[0-9a-f]{16}");
  for (std::size_t i = 0; i < error_catalog().size(); ++i) {
    const CatalogEntry& e = error_catalog()[i];
    const auto r = catalog_record(e, one_operator(e.id));
    EXPECT_TRUE(std::regex_match(r["id"].get<std::string>(), hex16)) << r["id"];
    EXPECT_TRUE(ids.insert(r["id"]).second) << "duplicate id " << r["id"];
    EXPECT_TRUE(slugs.insert(r["slug"]).second) << "duplicate slug " << r["slug"];
    EXPECT_EQ(r["schemaVersion"], 2);
    EXPECT_EQ(r["errorMessage"], e.message);
    EXPECT_EQ(r["messagePattern"], e.message_pattern);
    EXPECT_EQ(r["errorClass"], e.is_extension() ? "kda::ContractError" : "ValueError") << e.id;
    const auto& tags = r["tags"];
    EXPECT_NE(std::find(tags.begin(), tags.end(), "kda-catalog:" + e.id), tags.end()) << e.id;
    EXPECT_NE(std::find(tags.begin(), tags.end(), "kda-operator:some_op"), tags.end()) << e.id;
  }
}

TEST(CatalogRecords, SourceFactsHoldTheCheck) {
  for (const CatalogEntry& e : error_catalog()) {
    const auto r = catalog_record(e, {});
    const int64_t line = r["lineNumber"], start = r["sourceCodeStart"], end = r["sourceCodeEnd"];
    ASSERT_LE(start, line) << e.id;
    ASSERT_LE(line, end) << e.id;
    const std::vector<std::string> code = split(r["sourceCode"]);
    ASSERT_EQ(static_cast<int64_t>(code.size()), end - start + 1) << e.id;
    const std::string& at = code[static_cast<std::size_t>(line - start)];
    const std::string url = r["githubUrl"];
    EXPECT_TRUE(url.ends_with(fmt::format("{}#L{}-L{}", r["filePath"].get<std::string>(), start, end))) << url;
    if (e.is_extension()) {
      EXPECT_NE(at.find(e.harness_anchor), std::string::npos) << e.id << ": " << at;
      const std::vector<std::string> file = file_lines(std::string(KDA_SOURCE_DIR) + "/" + r["filePath"].get<std::string>());
      ASSERT_GE(static_cast<int64_t>(file.size()), end) << r["filePath"];
      for (int64_t i = start; i <= end; ++i)
        EXPECT_EQ(code[static_cast<std::size_t>(i - start)], file[static_cast<std::size_t>(i - 1)])
            << e.id << ": the embedded source is stale at line " << i << " (re-run cmake)";
    } else {
      EXPECT_EQ(r["repo"], "sgl-project/sglang");
      EXPECT_TRUE(url.starts_with("https://github.com/sgl-project/sglang/blob/" + r["analyzedSha"].get<std::string>()));
      EXPECT_NE(at.find("raise ValueError"), std::string::npos) << e.id << ": " << at;
      if (!e.is_template()) {
        EXPECT_EQ(literal_text(code, static_cast<std::size_t>(line - start)), e.message) << e.id << ": " << at;
      }
    }
  }
}

// The seed's record is R6: same message, pattern and every source fact.
TEST(CatalogRecords, KCacheRecordIsTheSeeds) {
  const auto& s = seed()["record"];
  const auto r = catalog_record(*find_catalog_entry("R6"), {});
  for (const char* key : {"id", "repo", "slug", "errorMessage", "messagePattern", "errorClass", "filePath", "lineNumber",
                          "sourceCode", "sourceCodeStart", "sourceCodeEnd", "githubUrl", "analyzedSha", "schemaVersion"})
    EXPECT_EQ(r[key], s[key]) << key;
}

}  // namespace
}  // namespace kda::test
