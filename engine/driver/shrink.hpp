// Shrinking a failing case, as RapidCheck shrinks a property's input: the smallest config line
// that still fails, found greedily (fewer tokens, rows, value heads, query heads, a smaller K
// and V, a shorter ring, fewer slots, compact layouts), each candidate no larger than the
// original in any dimension and valid for the operator (its fit_case applied; a candidate the
// fit moves back up is skipped).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "cases/case_config.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

struct Shrunk {
  CaseConfig config;
  int64_t runs = 0;  // candidates tried
};

// `fails` reruns a candidate and says whether it still fails. At most `max_runs` reruns. nullopt
// when no candidate smaller than `failing` fails (the case is as small as this finds).
std::optional<Shrunk> shrink_case(const CaseConfig& failing, const OperatorDescription& op,
                                  const std::function<bool(const CaseConfig&)>& fails, int64_t max_runs = 100);

// A failing rollout of a backend suite shrunk on its backend: candidates rerun as it ran (against
// the CPU reference, or the float64 truth where `failing.against` is "truth"), a candidate
// failing of `failing`'s cause (engine/reports/failure_cause.hpp) counting as failing, for at most
// defaults::kShrinkSeconds and kShrinkRuns reruns (engine/driver/defaults.hpp). nullopt when it is no such
// rollout (a named case, a call outside the envelope, an error input) or nothing smaller fails.
// `kda-harness check` and the C library's kda_shrink_case (Python's check()) both shrink with it.
class Backend;
struct CaseReport;
bool shrinkable(const CaseReport& failing);
std::optional<Shrunk> shrink_failure(const CaseReport& failing, Backend& backend);

// Every dimension of `c` no larger than `of`'s (the promise a shrunk line keeps).
bool no_larger(const CaseConfig& c, const CaseConfig& of);

}  // namespace kda::engine
