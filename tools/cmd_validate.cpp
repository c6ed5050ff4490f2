// `kda-harness validate FILE.json` (or `-` for stdin): runs the contract on one call's
// metadata. Prints `ok B=.. H=.. HV=.. K=.. V=.. L=.. slots=..` (exit 0), or the catalog id,
// the exact message, the catalog's fix and the values behind the message (exit 1). --json
// prints the same as one JSON object (status "ok", "error" or "usage-error"). A malformed
// file is a usage error (exit 2).
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "tools/subcommands.hpp"
#include "tools/validate_explain.hpp"

namespace kda::cli {
namespace {

bool read_input(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    return !std::cin.bad();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

nlohmann::ordered_json dims_json(const Dims& d) {
  return {{"B", d.B}, {"H", d.H}, {"HV", d.HV}, {"K", d.K}, {"V", d.V}, {"L", d.L}, {"slots", d.slots}};
}

int report_ok(const Dims& d, bool json) {
  if (json) {
    nlohmann::ordered_json j{{"status", "ok"}, {"dims", dims_json(d)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "ok B=" << d.B << " H=" << d.H << " HV=" << d.HV << " K=" << d.K << " V=" << d.V << " L=" << d.L
              << " slots=" << d.slots << "\n";
  }
  return kPass;
}

int report_error(const ContractError& e, const StepArgs& args, bool json) {
  const CatalogEntry* entry = find_catalog_entry(e.id());
  const std::vector<Value> values = explain(e.id(), args);
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

int run_validate(const std::string& path, Backend backend, bool json) {
  std::string text;
  if (!read_input(path, text)) {
    std::cerr << "kda-harness validate: cannot read " << path << "\n";
    return kUsage;
  }
  StepTensors call;
  try {
    call = parse_call_metadata(std::string_view(text));
  } catch (const MetadataError& e) {
    std::cerr << "kda-harness validate: usage error: " << e.what() << "\n";
    if (json) std::cout << nlohmann::ordered_json{{"status", "usage-error"}, {"message", e.what()}}.dump(2) << "\n";
    return kUsage;
  }
  const StepArgs args = call.args();
  try {
    return report_ok(validate(args, backend), json);
  } catch (const ContractError& e) {
    return report_error(e, args, json);
  }
}

}  // namespace

void register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check one call's metadata (JSON) against the contract");
  auto path = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("any");
  auto json = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "JSON metadata of the call (keys = contract.md argument names), or - for stdin")
      ->required();
  cmd->add_option("--backend", *backend, "Also check the device for a backend: any, cpu or cuda")
      ->check(CLI::IsMember({"any", "cpu", "cuda"}));
  cmd->add_flag("--json", *json, "Print the verdict as one JSON object (status, dims or id, message, fix, values)");
  cmd->callback([path, backend, json] {
    const Backend b = *backend == "cpu" ? Backend::Cpu : *backend == "cuda" ? Backend::Cuda : Backend::Any;
    set_exit_code(run_validate(*path, b, *json));
  });
}

}  // namespace kda::cli
