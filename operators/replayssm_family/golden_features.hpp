// The row patterns of the ReplaySSM family's golden cases (golden::Feature: appends, flushes,
// padding, divergent cursors, history checkpoints, wrapped windows), read from a rollout's
// index tensors: what a spec claims, the seed that shows it, and the check when its file is
// generated (golden/golden_generate.cpp).
#pragma once
#include <cstdint>
#include <set>

#include "cases/case_tensors.hpp"
#include "engine/description/golden_spec.hpp"

namespace kda::golden {

// Replaces the generator's force_flush draw of step t by the spec's script, if any.
void apply_script(const GoldenSpec& spec, CaseTensors& t, int64_t step);
// Adds the row patterns of the current step of t to `seen`.
void note_features(const CaseTensors& t, int64_t step, std::set<Feature>& seen);
// The row patterns a rollout of the spec's config exhibits (with the spec's scripted
// flushes), from the index tensors alone.
std::set<Feature> row_features(const GoldenSpec& spec);
// The first seed from `first` on (in steps of `stride`) whose rollout shows every row pattern
// the spec claims; GenerationError when none of 200 does.
uint64_t seed_showing(GoldenSpec spec, uint64_t first, uint64_t stride);

}  // namespace kda::golden
