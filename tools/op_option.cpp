#include <vector>

#include "engine/operator.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {

void add_op_option(CLI::App* cmd, std::string& op) {
  std::vector<std::string> names;
  for (const engine::OperatorDescription* o : engine::operators()) names.emplace_back(o->name);
  cmd->add_option("--op", op, "The operator: " + engine::operator_names() + " (default " + names.front() + ")")
      ->check(CLI::IsMember(names));
}

}  // namespace kda::cli
