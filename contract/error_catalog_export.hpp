// The catalog in the two forms users read: records of the seed dataset's schema
// (`kda-harness errors --records`) and the Markdown of docs/errors.md
// (`kda-harness errors --markdown`).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "contract/error_catalog.hpp"

namespace kda {

// One record in the seed schema (/work/shared/seed): errorMessage, messagePattern,
// documentation, triggerScenarios, commonSituations, solutions, exampleFix, validationCode,
// typeGuard, preventionTips, tags, ... plus the catalog's origin, source, trigger and fix.
nlohmann::ordered_json catalog_record(const CatalogEntry& e);
// All entries, in catalog order.
nlohmann::ordered_json catalog_records();
// The full text of docs/errors.md.
std::string catalog_markdown();

}  // namespace kda
