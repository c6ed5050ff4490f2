#include <vector>

#include "engine/backends/backend.hpp"
#include "engine/description/operator.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {

CLI::Option* add_op_option(CLI::App* cmd, std::string& op) {
  std::vector<std::string> names;
  for (const engine::OperatorDescription* o : engine::operators()) names.emplace_back(o->name);
  return cmd->add_option("--op", op, "The operator: " + engine::operator_names() + " (default: the plugin's own with "
                                         "--backend plugin:PATH, else " + names.front() + ")")
      ->check(CLI::IsMember(names));
}

const engine::OperatorDescription& judged_operator(const CLI::Option* op_option, const std::string& op,
                                                   const std::string& backend) {
  if (op_option->count() == 0) {
    try {
      if (const engine::OperatorDescription* named = engine::operator_named_by(backend)) return *named;
    } catch (const std::exception&) {
      // A plugin that does not load: make_backend says why when the subcommand makes it.
    }
  }
  return engine::find_operator(op);
}

}  // namespace kda::cli
