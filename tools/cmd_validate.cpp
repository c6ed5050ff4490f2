// Placeholder: replaced by the work that owns `kda-harness validate`.
#include "tools/subcommands.hpp"
namespace kda::cli {
void register_validate(CLI::App& app) {
  app.add_subcommand("validate", "(not yet implemented)")->callback([] { set_exit_code(3); });
}
}  // namespace kda::cli
