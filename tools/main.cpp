// kda-harness: one command line for the harness. Each subcommand lives in its own file and
// registers itself here.
#include <CLI/CLI.hpp>

#include "tools/subcommands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kda-harness: conformance harness for the KDA ReplaySSM decode kernel"};
  app.require_subcommand(1);
  kda::cli::register_validate(app);
  kda::cli::register_errors(app);
  kda::cli::register_case(app);
  kda::cli::register_check(app);
  kda::cli::register_golden(app);
  kda::cli::register_mutants(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // usage errors exit 2
  }
  return kda::cli::exit_code();
}
