// `kda-harness completion bash|zsh`: the shell completion script, written from the command
// line's own definition (tools/cli_tree.hpp), so it cannot drift from the options it takes.
#include <iostream>

#include "tools/cli_tree.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {

void register_completion(CLI::App& app) {
  auto* cmd = app.add_subcommand("completion", "Print a shell completion script (bash or zsh) of every subcommand and "
                                               "option; e.g. source <(kda-harness completion bash)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  cmd->callback([cmd, shell] {
    const CLI::App& root = *cmd->get_parent();
    std::cout << (*shell == "bash" ? bash_completion(root, root.get_name()) : zsh_completion(root, root.get_name()));
    set_exit_code(kPass);
  });
}

}  // namespace kda::cli
