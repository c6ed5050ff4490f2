#include "operators/replayssm_family/golden_features.hpp"

#include <algorithm>

#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::golden {

void apply_script(const GoldenSpec& spec, CaseTensors& t, int64_t step) {
  auto it = spec.forced.find(step);
  if (it == spec.forced.end()) return;
  if (!t.force_flush || static_cast<int64_t>(it->second.size()) != spec.config.B)
    throw GenerationError(spec.name + ": scripted flushes need force_flush present and one value per row");
  for (int64_t row = 0; row < spec.config.B; ++row) t.force_flush->set_linear(row, it->second[row]);
}

void note_features(const CaseTensors& t, int64_t step, std::set<Feature>& seen) {
  const CaseConfig& c = t.config;
  std::set<int64_t> cursors;
  int64_t active = 0;
  for (int64_t row = 0; row < c.B; ++row) {
    if (t.ssm_state_indices.get_linear(row) < 0) {
      seen.insert(Feature::Padding);
      continue;
    }
    ++active;
    const RingCursor ring = ring_cursor(t, row);
    const int64_t cursor = ring.write_pos;
    cursors.insert(cursor);
    const bool forced = t.force_flush && t.force_flush->get_linear(row) != 0;
    const RingStep kind = ring.step(forced);
    if (kind == RingStep::History) seen.insert(Feature::HistoryCheckpoint);
    else if (cursor == c.L - 1) seen.insert(Feature::NaturalFlush);
    else if (forced) seen.insert(Feature::ForcedFlush);
    else seen.insert(Feature::Append);
    if (ring.circular && ring.base + cursor >= c.L && kind != RingStep::Full) seen.insert(Feature::WrappedWindow);
  }
  if (step == 0 && active >= 3 && static_cast<int64_t>(cursors.size()) == active) seen.insert(Feature::DivergentCursors);
}

std::set<Feature> row_features(const GoldenSpec& spec) {
  // Row patterns depend on the seed, B, slots, L and the pad/flush/cursor settings only (each
  // is drawn from its own counter stream, cases/rng.hpp), so a copy with K = V = 1 and one
  // head shows them at no cost.
  CaseConfig tiny = spec.config;
  tiny.K = tiny.V = tiny.H = tiny.HV = 1;
  GoldenSpec probe = spec;
  probe.config = tiny;
  CaseTensors t = materialize_replayssm_case(tiny);
  std::set<Feature> seen;
  for (int64_t step = 0; step < tiny.steps; ++step) {
    if (step > 0) fill_token(t, step);
    apply_script(probe, t, step);
    note_features(t, step, seen);
    advance_cursors(t);
  }
  return seen;
}

uint64_t seed_showing(GoldenSpec spec, uint64_t first, uint64_t stride) {
  for (int tries = 0; tries < 200; ++tries) {
    spec.config.seed = first + stride * static_cast<uint64_t>(tries);
    const std::set<Feature> seen = row_features(spec);
    if (std::all_of(spec.features.begin(), spec.features.end(), [&](Feature f) { return seen.count(f) > 0; }))
      return spec.config.seed;
  }
  throw GenerationError("golden cases: no seed shows the row patterns of " + spec.name);
}

}  // namespace kda::golden
