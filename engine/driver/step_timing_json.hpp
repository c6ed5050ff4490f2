// A TimingReport (engine/driver/step_timing.hpp) as JSON: `check --time --json`'s "time" and the C
// library's kda_time_plugin. A library of its own (kda_timing_json), so that the engine itself
// needs no JSON library.
#pragma once
#include <nlohmann/json.hpp>

#include "engine/driver/step_timing.hpp"

namespace kda::engine {

// {"backend", "clock", "copy_gbps", "classes": [{"class", "config" (in the operator's words),
// "cursor", "median_us", "p10_us", "p90_us", "runs" (or "problem"), "bytes", "gbps", "copy_fraction"}]}
nlohmann::ordered_json timing_json(const TimingReport& r, const OperatorDescription& op);

}  // namespace kda::engine
