// Placeholder: replaced by the work that owns `kda-harness case`.
#include "tools/subcommands.hpp"
namespace kda::cli {
void register_case(CLI::App& app) {
  app.add_subcommand("case", "(not yet implemented)")->callback([] { set_exit_code(3); });
}
}  // namespace kda::cli
