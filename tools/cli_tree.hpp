// The command line's own CLI11 definition read back as a tree: what `completion` writes for
// bash and zsh (so the scripts list exactly the subcommands and options the binary takes),
// and the check that names an unknown subcommand (CLI11 alone reports a missing one).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace kda::cli {

// "" when argv's leading words are subcommands of `app` (or stop at an option), else
// "kda-harness golden: unknown subcommand 'verfy' (known: regen, verify)".
std::string unknown_subcommand(const CLI::App& app, int argc, const char* const* argv);

// A completion script for `program`, of every subcommand and option of `app`.
std::string bash_completion(const CLI::App& app, const std::string& program);
std::string zsh_completion(const CLI::App& app, const std::string& program);

}  // namespace kda::cli
