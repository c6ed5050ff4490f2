// `kda-harness validate FILE.json` (or `-` for stdin): runs the contract on one call's
// metadata. Prints `ok B=.. H=.. HV=.. K=.. V=.. L=.. slots=..` (exit 0), or the catalog id,
// the exact message and the catalog's fix (exit 1). A malformed file is a usage error (exit 2).
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

bool read_input(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

int run_validate(const std::string& path, Backend backend) {
  std::string text;
  if (!read_input(path, text)) {
    std::cerr << "kda-harness validate: cannot read " << path << "\n";
    return 2;
  }
  StepTensors call;
  try {
    call = parse_call_metadata(std::string_view(text));
  } catch (const MetadataError& e) {
    std::cerr << "kda-harness validate: usage error: " << e.what() << "\n";
    return 2;
  }
  try {
    const Dims d = validate(call.args(), backend);
    std::cout << "ok B=" << d.B << " H=" << d.H << " HV=" << d.HV << " K=" << d.K << " V=" << d.V << " L=" << d.L
              << " slots=" << d.slots << "\n";
    return 0;
  } catch (const ContractError& e) {
    std::cout << e.id() << "\n" << e.what() << "\n";
    if (const CatalogEntry* entry = find_catalog_entry(e.id())) std::cout << "fix: " << entry->fix << "\n";
    return 1;
  }
}

}  // namespace

void register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check one call's metadata (JSON) against the contract");
  auto path = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("any");
  cmd->add_option("file", *path, "JSON metadata of the call (keys = contract.md argument names), or - for stdin")
      ->required();
  cmd->add_option("--backend", *backend, "Also check the device for a backend: any, cpu or cuda")
      ->check(CLI::IsMember({"any", "cpu", "cuda"}));
  cmd->callback([path, backend] {
    const Backend b = *backend == "cpu" ? Backend::Cpu : *backend == "cuda" ? Backend::Cuda : Backend::Any;
    set_exit_code(run_validate(*path, b));
  });
}

}  // namespace kda::cli
