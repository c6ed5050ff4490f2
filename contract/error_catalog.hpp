// The error catalog: one entry per error id that validate() or check_runtime_values() can
// raise, read from contract/error_catalog.json (embedded at build time). Each entry carries
// the exact message (or contract.md's f-string template), a regular expression that matches
// every message the entry stands for, where the check comes from (SGLang or the harness),
// and the documentation fields of the seed record schema.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kda {

struct CatalogEntry {
  std::string id;               // "W1", "V1".."V22", "R1".."R10", "X-..."
  std::string origin;           // "documented in SGLang" or "harness extension"
  std::string source;           // the wrapper/validator function (and file) it comes from
  std::string check;            // the condition, as written in contract.md
  std::string message;          // exact message, or template with {placeholders}
  std::string message_pattern;  // ECMAScript regex, matched against the whole message
  std::string trigger, fix;     // one line each: what raises it, how to fix it
  std::string documentation, trigger_scenarios, common_situations, example_fix, validation_code, type_guard,
      background_tag;
  std::vector<std::string> solutions, prevention_tips, tags;
  int64_t sglang_line = 0;       // documented: the line of SGLang's `raise` (error_catalog.json's excerpts)
  std::string harness_anchor;    // extension: the token that marks its check in its source file
  std::string record_id;         // the record id when fixed by the seed dataset, else empty

  bool is_template() const { return message.find('{') != std::string::npos; }
  bool is_extension() const { return origin == "harness extension"; }
};

// All entries, in check order (W1, W2, V1..V22, R1..R10, then the extensions).
const std::vector<CatalogEntry>& error_catalog();
// nullptr if no entry has this id.
const CatalogEntry* find_catalog_entry(std::string_view id);
// Ids of the entries whose messagePattern matches the whole message (exactly one for every
// message the harness raises).
std::vector<std::string> catalog_ids_matching(const std::string& message);
// The embedded JSON text of contract/error_catalog.json.
std::string_view error_catalog_json();

}  // namespace kda
