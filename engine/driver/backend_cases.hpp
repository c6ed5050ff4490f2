// The cases the backend suites draw (the CLI's kernel, kernel-truth and envelope suites, the
// C library's rollout, truth and envelope suites, Python's cases()): inside the region a
// backend is sampled in (its envelope, narrowed by a restriction), so that what a kernel
// ships is what is tested:
//   - K and V uniformly over the powers of two the region and the limits allow (drawn inside
//     the region, never drawn outside and clamped in, and kept when the case is fitted under
//     the work budget: the other sizes shrink first);
//   - one case in kProductionEvery (index 0, 5, 10, ...) a production shape: K = V = 128 (the
//     nearest power of two the region allows) with a production head layout, H = HV (4, 8,
//     16) or grouped (H = 2, HV = 16), over at least kProductionWork of work (the tests'
//     small budgets would leave no room for 16 heads of 128 x 128); B, the ring and the
//     tokens shrink to fit first, then the heads (ratio kept);
//   - the next case of every kProductionEvery (index 1, 6, 11, ...) has precise outputs: a
//     16-bit activation dtype, float32 state, rings and out, where the region allows: an
//     error of the size of an input's rounding (a value not rounded as the operator rounds
//     it) shows only against outputs finer than the inputs;
//   - force_flush, lower_bound and L2 norm each both on and off in every block of
//     kStratumSize cases (0..19, 20..39, ...): each block shuffles a fixed count of "on" over
//     its positions.
//   - one case in kPaddedEndsEvery with two rows or more pads both ends of its batch and
//     leaves the last slot to no live row (CaseConfig::pad_ends);
// A case of one row never pads it (a case that computes nothing finds nothing). Case `index`
// of `seed` is the same on every machine and independent of every other draw.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "engine/description/envelope.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/production_shapes.hpp"
#include "engine/description/sample_space.hpp"

namespace kda::engine {

inline constexpr int64_t kProductionEvery = 5;
inline constexpr int64_t kStratumSize = 20;
// One case in kPaddedEndsEvery (index 3, 7, 11, ...) with more than one row pads both ends of
// its batch (CaseConfig::pad_ends; a batch of two gets a third row, live, between them).
inline constexpr int64_t kPaddedEndsEvery = 4;
// One row of 16 value heads at K = V = 128 over a ring of 4 and 2 tokens.
inline constexpr double kProductionWork = 2.2e6;

// Case `index` of `seed` from the operator's sample space (before its fit_case), inside
// `region` (an envelope, or an envelope narrowed by a restriction) and `limits` (the suite's
// sizes and work budget). Throws std::invalid_argument
// when no case fits the region (an empty dtype set, a K or V range without a power of two).
// With `model` (check --model), or a region that pins K and V to one production head dim
// each (K=128,V=128), the case is a production one instead: the model's (else a production
// layout's) heads and decode batches as a server runs them (engine/description/production_shapes.hpp),
// whatever the work budget.
CaseConfig draw_backend_case(const OperatorDescription& op, uint64_t seed, uint64_t index, const SampleLimits& limits,
                             const Envelope& region, const ProductionShape* model = nullptr);
// Whether draw_backend_case draws production batches in `region` (with or without a model).
bool draws_production_batches(const Envelope& region, const ProductionShape* model);

// Whether case `index` is one of the production shapes, one of the precise-output cases, one
// padded at both ends.
bool is_production_index(uint64_t index);
bool is_precise_index(uint64_t index);
bool is_padded_ends_index(uint64_t index);

// The distribution of a set of drawn cases: counts per K, V, head layout, flag, dtype.
struct CaseStats {
  int64_t cases = 0, production = 0;
  std::map<std::string, std::map<std::string, int64_t>> counts;  // "K" -> {"32": 341, ...}
  void add(const CaseConfig& c);
  // A few lines, one per field the operator has words for (engine/description/operator_words.hpp):
  // "K: 32 339 (33.9%) | 64 330 (33.0%) | 128 331 (33.1%)".
  std::string describe(const OperatorDescription& op) const;
};

}  // namespace kda::engine
