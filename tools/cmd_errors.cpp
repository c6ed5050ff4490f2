// Placeholder: replaced by the work that owns `kda-harness errors`.
#include "tools/subcommands.hpp"
namespace kda::cli {
void register_errors(CLI::App& app) {
  app.add_subcommand("errors", "(not yet implemented)")->callback([] { set_exit_code(3); });
}
}  // namespace kda::cli
