// `kda-harness validate [--op OP] FILE.json` (or `-` for stdin): runs the operator's contract
// on one call's metadata (its tensors and its own scalar arguments: gdn_replayssm's nk,
// circular_replay, ... are keys of its calls). Prints the operator's ok line (`ok B=.. H=.. HV=.. K=.. V=.. L=..
// slots=..` for ReplaySSM, no L for the plain packed decode) (exit 0), or the catalog id,
// the exact message, the catalog's fix and the values behind the message (exit 1). --json
// prints the same as one JSON object (status "ok", "error" or "usage-error"). A malformed
// file, or input over 64 MiB (refused before it is read whole), is a usage error (exit 2).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <sstream>
#include <vector>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "engine/description/operator.hpp"
#include "tools/argument_checks.hpp"
#include "tools/subcommands.hpp"
#include "tools/validate_explain.hpp"

namespace kda::cli {
namespace {

// The dims the ok line names, as a JSON object.
nlohmann::ordered_json dims_json(const std::string& ok_line) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  std::istringstream words(ok_line.substr(ok_line.find(' ') + 1));
  for (std::string w; words >> w;) j[w.substr(0, w.find('='))] = std::stoll(w.substr(w.find('=') + 1));
  return j;
}

int report_ok(const engine::OperatorDescription& op, const Dims& d, bool json) {
  const std::string line = op.ok_line(d);
  if (json) std::cout << nlohmann::ordered_json{{"status", "ok"}, {"dims", dims_json(line)}}.dump(2) << "\n";
  else std::cout << line << "\n";
  return kPass;
}

int report_error(const engine::OperatorDescription& op, const ContractError& e, const StepArgs& args, bool json) {
  const CatalogEntry* entry = find_catalog_entry(e.id());
  const std::vector<Value> values = explain(op, e.id(), args);
  if (json) {
    nlohmann::ordered_json j{{"status", "error"}, {"id", e.id()}, {"message", e.what()}};
    j["origin"] = entry ? entry->origin : "";
    j["fix"] = entry ? entry->fix : "";
    j["values"] = nlohmann::ordered_json::object();
    for (const Value& v : values) j["values"][v.name] = v.json;
    std::cout << j.dump(2) << "\n";
    return kFail;
  }
  std::cout << e.id() << "\n" << e.what() << "\n";
  if (entry) std::cout << "fix: " << entry->fix << "\n";
  if (!values.empty()) std::cout << "values:\n";
  for (const Value& v : values)
    std::cout << "  " << v.name << " = " << v.text << (v.note.empty() ? "" : "  (" + v.note + ")") << "\n";
  return kFail;
}

// For metadata that is no call of `op`: the operators of whose calls it has the keys, and the
// --op to add (a file names no operator); empty if none.
std::string operators_it_reads_as(const std::string& text, const engine::OperatorDescription& op) {
  std::vector<std::string> names;
  for (const engine::OperatorDescription* other : engine::operators()) {
    if (other == &op) continue;
    try {
      parse_call_metadata(std::string_view(text), other->tensors, other->scalars);
      names.emplace_back(other->name);
    } catch (const MetadataError&) {
    }
  }
  if (names.empty()) return "";
  return fmt::format(" (read as a call of {}; it is a call of {}: add --op {})", op.name, fmt::join(names, " or "),
                     fmt::join(names, " or --op "));
}

int run_validate(const engine::OperatorDescription& op, const std::string& path, Backend backend, bool json) {
  std::string text;
  switch (read_bounded(path, text)) {
    case ReadStatus::Ok: break;
    case ReadStatus::Unreadable:
      std::cerr << "kda-harness validate: cannot read " << path << "\n";
      return kUsage;
    case ReadStatus::TooLarge:
      std::cerr << "kda-harness validate: usage error: " << (path == "-" ? "standard input" : path) << " is over "
                << kMaxInputText << " (a call's metadata is a few KiB): not read\n";
      return kUsage;
  }
  StepTensors call;
  try {
    call = parse_call_metadata(std::string_view(text), op.tensors, op.scalars);
  } catch (const MetadataError& e) {
    const std::string message = e.what() + operators_it_reads_as(text, op);
    std::cerr << "kda-harness validate: usage error: " << message << "\n";
    if (json) std::cout << nlohmann::ordered_json{{"status", "usage-error"}, {"message", message}}.dump(2) << "\n";
    return kUsage;
  }
  const StepArgs args = op.bind(call.args());
  try {
    return report_ok(op, op.validate(args, backend), json);
  } catch (const ContractError& e) {
    return report_error(op, e, args, json);
  }
}

}  // namespace

void register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check one call's metadata (JSON) against the contract");
  auto path = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("any");
  auto json = std::make_shared<bool>(false);
  auto op = std::make_shared<std::string>(engine::default_operator().name);
  cmd->add_option("file", *path, "JSON metadata of the call (keys = contract.md argument names), or - for stdin")
      ->required();
  cmd->add_option("--backend", *backend, "Also check the device for a backend: any, cpu or cuda")
      ->check(CLI::IsMember({"any", "cpu", "cuda"}));
  add_op_option(cmd, *op);
  cmd->add_flag("--json", *json, "Print the verdict as one JSON object (status, dims or id, message, fix, values)");
  cmd->callback([path, backend, json, op] {
    const Backend b = *backend == "cpu" ? Backend::Cpu : *backend == "cuda" ? Backend::Cuda : Backend::Any;
    set_exit_code(run_validate(engine::find_operator(*op), *path, b, *json));
  });
}

}  // namespace kda::cli
