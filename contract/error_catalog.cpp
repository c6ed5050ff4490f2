#include "contract/error_catalog.hpp"

#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

namespace kda {
namespace detail {
extern const std::string_view kErrorCatalogJson;  // error_catalog_data.cpp (generated)
}

namespace {

std::vector<std::string> strings(const nlohmann::json& j) { return j.get<std::vector<std::string>>(); }

CatalogEntry parse_entry(const nlohmann::json& j) {
  CatalogEntry e;
  e.id = j.at("id");
  e.origin = j.at("origin");
  e.source = j.at("source");
  e.check = j.at("check");
  e.message = j.at("message");
  e.message_pattern = j.at("messagePattern");
  e.trigger = j.at("trigger");
  e.fix = j.at("fix");
  e.documentation = j.at("documentation");
  e.trigger_scenarios = j.at("triggerScenarios");
  e.common_situations = j.at("commonSituations");
  e.example_fix = j.at("exampleFix");
  e.validation_code = j.at("validationCode");
  e.type_guard = j.at("typeGuard");
  e.background_tag = j.at("backgroundTag");
  e.solutions = strings(j.at("solutions"));
  e.prevention_tips = strings(j.at("preventionTips"));
  e.tags = strings(j.at("tags"));
  e.sglang_line = j.value("sglangLine", int64_t{0});
  e.harness_anchor = j.value("harnessAnchor", "");
  e.record_id = j.value("recordId", "");
  if (e.origin != "documented in SGLang" && e.origin != "harness extension")
    throw std::logic_error("error_catalog.json: bad origin for " + e.id);
  if (e.is_extension() ? e.harness_anchor.empty() : e.sglang_line <= 0)
    throw std::logic_error("error_catalog.json: no source line for " + e.id);
  return e;
}

struct Catalog {
  std::vector<CatalogEntry> entries;
  std::vector<std::regex> patterns;  // compiled messagePattern, same order
};

const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog out;
    const nlohmann::json doc = nlohmann::json::parse(detail::kErrorCatalogJson);
    for (const auto& j : doc.at("entries")) {
      out.entries.push_back(parse_entry(j));
      out.patterns.emplace_back(out.entries.back().message_pattern, std::regex::ECMAScript);
    }
    return out;
  }();
  return c;
}

}  // namespace

const std::vector<CatalogEntry>& error_catalog() { return catalog().entries; }

const CatalogEntry* find_catalog_entry(std::string_view id) {
  for (const auto& e : catalog().entries)
    if (e.id == id) return &e;
  return nullptr;
}

std::vector<std::string> catalog_ids_matching(const std::string& message) {
  std::vector<std::string> ids;
  const Catalog& c = catalog();
  for (std::size_t i = 0; i < c.entries.size(); ++i)
    if (std::regex_match(message, c.patterns[i])) ids.push_back(c.entries[i].id);
  return ids;
}

std::string_view error_catalog_json() { return detail::kErrorCatalogJson; }

}  // namespace kda
