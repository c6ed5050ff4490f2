// Placeholder: replaced by the work that owns `kda-harness golden`.
#include "tools/subcommands.hpp"
namespace kda::cli {
void register_golden(CLI::App& app) {
  app.add_subcommand("golden", "(not yet implemented)")->callback([] { set_exit_code(3); });
}
}  // namespace kda::cli
