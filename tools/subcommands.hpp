// Registration of kda-harness's subcommands. Each register_* adds one subcommand whose
// callback stores its exit status with set_exit_code() (tools/exit_code.hpp).
#pragma once
#include <CLI/CLI.hpp>

#include "tools/exit_code.hpp"

namespace kda::engine {
struct OperatorDescription;
}

namespace kda::cli {
// --op NAME, one of the operator table's (engine/description/operator.hpp: its help lists them all), into
// `op` (which holds the default operator until given).
CLI::Option* add_op_option(CLI::App* cmd, std::string& op);  // op_option.cpp
// The operator a subcommand judges: --op where given (make_backend then refuses a plugin of
// another one), else the one the backend names itself (a plugin's), else the default `op` holds.
const engine::OperatorDescription& judged_operator(const CLI::Option* op_option, const std::string& op,
                                                   const std::string& backend);  // op_option.cpp

void register_validate(CLI::App& app);  // cmd_validate.cpp
void register_errors(CLI::App& app);    // cmd_errors.cpp
void register_case(CLI::App& app);      // cmd_case.cpp
void register_check(CLI::App& app);     // cmd_check.cpp
void register_golden(CLI::App& app);    // cmd_golden.cpp
void register_mutants(CLI::App& app);   // cmd_mutants.cpp
void register_completion(CLI::App& app);  // cmd_completion.cpp
void register_emulate(CLI::App& app);   // cmd_emulate.cpp
void register_sensitivity(CLI::App& app);  // cmd_sensitivity.cpp
}  // namespace kda::cli
