// `kda-harness errors`: the error catalog. Plain: one line per entry (id, origin, message).
// --records: JSON records in the seed dataset's schema. --markdown: docs/errors.md.
#include <iostream>

#include "contract/error_catalog.hpp"
#include "contract/error_catalog_export.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {

void register_errors(CLI::App& app) {
  auto* cmd = app.add_subcommand("errors", "List the error catalog (every error id the contract can raise)");
  auto records = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  auto* r = cmd->add_flag("--records", *records, "Print the catalog as a JSON array of records (seed schema)");
  cmd->add_flag("--markdown", *markdown, "Print docs/errors.md")->excludes(r);
  cmd->callback([records, markdown] {
    if (*records) {
      std::cout << catalog_records().dump(2) << "\n";
    } else if (*markdown) {
      std::cout << catalog_markdown();
    } else {
      for (const auto& e : error_catalog())
        std::cout << e.id << "\t" << (e.is_extension() ? "extension" : "documented") << "\t" << e.message << "\n";
    }
    set_exit_code(0);
  });
}

}  // namespace kda::cli
