#pragma once
#include <memory>
#include <string>

#include "engine/backends/backend.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

// Loads PATH (dlopen), reads its kda_plugin_describe() and checks the description (ABI
// version, operator, a usable envelope, a step). Throws std::runtime_error saying what is
// wrong. The library stays loaded for the life of the process.
std::unique_ptr<Backend> load_plugin_backend(const std::string& path);

// The checks load_plugin_backend and plugin_backend make of a description (ABI version,
// operator, profile, step and last_error, a device, an envelope that admits a call); throws
// std::runtime_error saying what is wrong. The one loader's checks, for every front end.
void check_plugin_description(const kda_plugin* description, const std::string& what);

// The description as this harness reads it: a version 1 plugin's copied up to the fields it
// has (invalid_rows: KDA_INVALID_ROWS_NONE). Call after check_plugin_description's version check.
kda_plugin read_plugin_description(const kda_plugin& p);
// A backend over a description the caller owns (a Python callable's, built with ctypes);
// `what` names it in reports.
std::unique_ptr<Backend> plugin_backend(const kda_plugin& description, const std::string& what);

}  // namespace kda::engine
