// Placeholder: replaced by the work that owns `kda-harness check`.
#include "tools/subcommands.hpp"
namespace kda::cli {
void register_check(CLI::App& app) {
  app.add_subcommand("check", "(not yet implemented)")->callback([] { set_exit_code(3); });
}
}  // namespace kda::cli
