// `kda-harness errors`: the error catalog. Plain: one line per entry (id, origin, message).
// ID: that entry's section of docs/errors.md. --records: every entry as a record of the seed
// dataset's schema, each in its {"record", "datasetVersion"} envelope, as a JSON array.
// --markdown: docs/errors.md (every operator's entries). --op: only the entries that operator
// raises (the list, the records).
#include <algorithm>
#include <cctype>
#include <iostream>

#include "contract/error_catalog.hpp"
#include "contract/error_catalog_export.hpp"
#include "engine/description/operator.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct ErrorsArgs {
  std::string id, op = std::string(engine::default_operator().name);
  bool records = false, markdown = false;
};

int run_errors(const ErrorsArgs& a) {
  if (!a.id.empty()) {
    // Ids are upper case ("R6", "X-SLOT-INDEX"); what a user types need not be.
    std::string id = a.id;
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    const CatalogEntry* e = find_catalog_entry(id);
    if (!e) {
      std::cerr << "kda-harness errors: no catalog entry " << a.id << " (`kda-harness errors` lists them)\n";
      return kUsage;
    }
    if (a.records) std::cout << catalog_envelope(*e, engine::operators_raising(e->id)).dump(2) << "\n";
    else std::cout << catalog_entry_markdown(*e, engine::operators_raising(e->id));
    return kPass;
  }
  const engine::OperatorDescription& op = engine::find_operator(a.op);
  if (a.records) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& e : error_catalog())
      if (engine::raises(op, e.id)) all.push_back(catalog_envelope(e, engine::operators_raising(e.id)));
    std::cout << all.dump(2) << "\n";
  } else if (a.markdown) {
    std::cout << catalog_markdown(&engine::operators_raising);
  } else {
    for (const auto& e : error_catalog())
      if (engine::raises(op, e.id))
        std::cout << e.id << "\t" << (e.is_extension() ? "extension" : "documented") << "\t" << e.message << "\n";
  }
  return kPass;
}

}  // namespace

void register_errors(CLI::App& app) {
  auto* cmd = app.add_subcommand("errors", "List the error catalog (every error id the contract can raise)");
  auto a = std::make_shared<ErrorsArgs>();
  cmd->add_option("id", a->id, "One entry (e.g. R6): print its documentation, or with --records its record");
  auto* r = cmd->add_flag("--records", a->records, "Print records in the seed dataset's schema (JSON)");
  cmd->add_flag("--markdown", a->markdown, "Print docs/errors.md")->excludes(r);
  add_op_option(cmd, a->op);
  cmd->callback([a] { set_exit_code(run_errors(*a)); });
}

}  // namespace kda::cli
