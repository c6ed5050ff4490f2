// kda-harness: one command line for the harness. Each subcommand lives in its own file and
// registers itself here. Exit codes: 0 pass, 1 a check failed, 2 a usage error, bad input,
// a failed write or an unexpected exception (tools/exit_code.hpp).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include "tools/cli_tree.hpp"
#include "tools/exit_code.hpp"
#include "tools/subcommands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kda-harness: conformance harness for the KDA ReplaySSM decode kernel", "kda-harness"};
  app.set_version_flag("--version", kda::cli::version_text(), "Print the version and build options, then exit");
  app.set_help_all_flag("--help-all", "Print the help of every subcommand, then exit");
  app.require_subcommand(1);
  kda::cli::register_validate(app);
  kda::cli::register_errors(app);
  kda::cli::register_case(app);
  kda::cli::register_check(app);
  kda::cli::register_golden(app);
  kda::cli::register_mutants(app);
  kda::cli::register_completion(app);
  kda::cli::register_emulate(app);
  kda::cli::register_sensitivity(app);
  int code = 0;
  try {
    // CLI11 alone calls an unknown subcommand a missing one.
    if (const std::string unknown = kda::cli::unknown_subcommand(app, argc, argv); !unknown.empty()) {
      std::cerr << unknown << "\nRun with --help for more information.\n";
      code = kda::cli::kUsage;
    } else {
      app.parse(argc, argv);
      code = kda::cli::exit_code();
    }
  } catch (const CLI::ParseError& e) {
    code = app.exit(e) == 0 ? 0 : kda::cli::kUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "kda-harness: out of memory (a case larger than this machine can hold; see --memory-budget)\n";
    code = kda::cli::kUsage;
  } catch (const std::exception& e) {
    std::cerr << "kda-harness: unexpected error: " << e.what() << "\n";
    code = kda::cli::kUsage;
  } catch (...) {
    std::cerr << "kda-harness: unexpected error of an unknown type\n";
    code = kda::cli::kUsage;
  }
  return kda::cli::finish_stdout(code);
}
