// The defaults of every entry point, stated once: the command line (`kda-harness check`, case,
// golden verify, ...), the C library (kda_check_plugin, kda_cases; kda_defaults() gives this
// table to a front end) and through it Python's check() and the pytest plugin. An entry point
// reads them from here rather than writing its own, so that they cannot drift apart;
// python/tests/test_defaults.py runs each entry point with nothing named and compares.
//   operator   the table's first (default_operator()), unless the backend names its own: a
//              plugin is judged as the operator it implements (operator_named_by())
//   suites     against a backend, those of the suite table marked in_default_check
//              (default_drawn_suite_names(): the ones a front end can run, the golden set's
//              golden-kernel being the command line's); kernel-contract only when named
//   seed       kSeed
//   profile    a plugin's own; a Python callable without a kda_profile: kProfile
//   cases      the command line: each suite's default_cases (`check --list`, --scale); a front
//              end that calls a Python step once per token: kFrontEndCases per suite; either way
//              kernel-contract at least one case per documented error input of the operator, walked
//              in order, so that its default reaches every one (default_case_count)
//   shrinking  kShrinkRuns reruns or kShrinkSeconds per failure, whichever comes first
//   work       reference work per drawn rollout: kCliWorkBudget (`check --gpu-work-budget`,
//              sized for a kernel on a GPU), kLibraryWorkBudget (the C library's, sized for a
//              Python step), so case i of a suite is the same at the same budget
#pragma once
#include <cstdint>
#include <string_view>

namespace kda::engine {
struct OperatorDescription;
}

namespace kda::engine::defaults {

inline constexpr uint64_t kSeed = 1;
inline constexpr std::string_view kProfile = "helion";
inline constexpr int64_t kFrontEndCases = 20;
inline constexpr double kCliWorkBudget = 2e7;
inline constexpr double kLibraryWorkBudget = 2e5;
// Shrinking a failure (engine/driver/shrink.hpp's shrink_failure: `check`, Python's check()): at most
// this many reruns and seconds per failure (a production shape reruns slowly).
inline constexpr int64_t kShrinkRuns = 100;
inline constexpr double kShrinkSeconds = 30;

// The cases of `suite` an entry point runs where none are named: `base` (the command line's
// default_cases times --scale, a front end's kFrontEndCases), and for kernel-contract at least
// the operator's documented error inputs (engine/driver/suites.cpp).
int64_t default_case_count(std::string_view suite, const OperatorDescription& op, int64_t base);

}  // namespace kda::engine::defaults
