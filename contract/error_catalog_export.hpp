// The catalog in the two forms users read: records of the seed dataset's schema
// (`kda-harness errors --records`) and the Markdown of docs/errors.md
// (`kda-harness errors --markdown`).
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "contract/error_catalog.hpp"

namespace kda {

// One record in the seed dataset's schema (schemaVersion 2; ../shared/seed): the same fields,
// names, order and JSON types. A documented error carries SGLang's file, the line of its
// `raise`, and the excerpt around it (error_catalog.json's "sglang" excerpts, as facts);
// an extension points at this repository's file and the line of its check. The catalog id
// is kept as the tag "kda-catalog:<id>", each operator that raises it (`raised_by`, the
// operator table's word: engine::operators_raising) as "kda-operator:<op>".
nlohmann::ordered_json catalog_record(const CatalogEntry& e, std::span<const std::string> raised_by);
// {"record": ..., "datasetVersion": ...}, as each record of the seed dataset is stored.
nlohmann::ordered_json catalog_envelope(const CatalogEntry& e, std::span<const std::string> raised_by);
// The operators that raise an entry, by its id.
using RaisedBy = std::vector<std::string> (*)(std::string_view id);
// Every entry's envelope, in catalog order.
nlohmann::ordered_json catalog_records(RaisedBy raised_by);
// One entry's section of docs/errors.md (`kda-harness errors ID`).
std::string catalog_entry_markdown(const CatalogEntry& e, std::span<const std::string> raised_by);
// The full text of docs/errors.md.
std::string catalog_markdown(RaisedBy raised_by);

}  // namespace kda
