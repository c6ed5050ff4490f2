#include "operators/replayssm_family/sample_space.hpp"

#include <algorithm>
#include <array>

namespace kda::engine {
namespace {

// The ranges and weights, small options first (the end that shrinking moves towards).
constexpr WeightedRange kRows[] = {{{1, 8}, 1}};
constexpr WeightedRange kQueryHeads[] = {{{1, 4}, 1}};
// HV / H: powers of two (the kernel's GQA layouts), 8 rarer.
constexpr Weighted<int64_t> kGroups[] = {{1, 2}, {2, 2}, {4, 2}, {8, 1}};
// K and V: powers of two; 1..4 are degenerate heads, 8..128 several vector widths and
// tensor-core tiles, 256 several K tiles.
constexpr Weighted<int64_t> kHeadDims[] = {{1, 1},  {2, 1},  {4, 1},   {8, 2},  {16, 3},
                                           {32, 3}, {64, 3}, {128, 3}, {256, 2}};
// L: one record (every step flushes), short rings, rings of several chunks.
constexpr WeightedRange kRingLengths[] = {{{1, 1}, 1}, {{2, 16}, 6}, {{17, 70}, 2}};
constexpr WeightedRange kExtraSlots[] = {{{0, 3}, 1}};
// Tokens: a few, past a ring wrap or two, long rollouts.
constexpr WeightedRange kTokens[] = {{{1, 4}, 2}, {{5, 24}, 2}, {{25, 64}, 1}};
constexpr double kLowerBounds[] = {-0.5, -1.0, -2.0, -5.0, -10.0};
constexpr double kPadFractions[] = {0.0, 0.25, 0.5};
constexpr double kFlushProbs[] = {0.0, 0.1, 0.2, 0.3, 0.5};

// Valid calls (metadata only) reach further: many rows, any GQA ratio.
constexpr WeightedRange kCallRows[] = {{{1, 8}, 4}, {{9, 64}, 4}, {{65, 1024}, 1}};
constexpr WeightedRange kCallQueryHeads[] = {{{1, 8}, 1}};
constexpr WeightedRange kCallGroups[] = {{{1, 8}, 1}};
constexpr WeightedRange kEnvelopePads[] = {{{1, 300}, 1}};
constexpr int64_t kUnitStrides[] = {1, 3, 5, 7, 13};
constexpr DLDevice kDevices[] = {{kDLCPU, 0}, {kDLCUDA, 0}, {kDLCUDA, 3}};

template <class T, std::size_t N>
std::span<const T> all(const T (&a)[N]) {
  return {a, N};
}

int64_t head_dim(Chooser& c, IntRange limit) {
  return choose(c, all(kHeadDims), [&](int64_t x) { return limit.contains(x); });
}

// Halves x while the work is over budget, not below lo; true if it moved.
bool halve(int64_t& x, int64_t lo) {
  if (x / 2 < std::max<int64_t>(lo, 1)) return false;
  x /= 2;
  return true;
}

void fit_budget(CaseConfig& c, const SampleLimits& lim) {
  while (rollout_work(c) > lim.work_budget) {
    if (c.steps > 4 && halve(c.steps, std::max<int64_t>(lim.tokens.lo, 4))) continue;
    if (c.K >= c.V && c.K > 8 && halve(c.K, lim.K.lo)) continue;
    if (c.V > 8 && halve(c.V, lim.V.lo)) continue;
    if (c.B > 1) {
      c.slots -= c.B - c.B / 2;
      c.B /= 2;
      continue;
    }
    if (c.HV > c.H) {
      c.HV /= 2;  // HV / H is a power of two
      continue;
    }
    if (c.L > 4 && halve(c.L, std::max<int64_t>(lim.ring_length.lo, 4))) continue;
    if (halve(c.steps, lim.tokens.lo) || halve(c.K, lim.K.lo) || halve(c.V, lim.V.lo)) continue;
    break;
  }
}

}  // namespace

CaseConfig sample_case(Chooser& ch, const SampleLimits& lim) {
  CaseConfig c;
  c.B = choose_in(ch, kRows, lim.rows);
  c.H = choose_in(ch, kQueryHeads, lim.query_heads);
  c.HV = c.H * choose(ch, all(kGroups), [&](int64_t g) { return lim.group.contains(g); });
  c.K = head_dim(ch, lim.K);
  c.V = head_dim(ch, lim.V);
  c.L = choose_in(ch, kRingLengths, lim.ring_length);
  c.slots = c.B + choose_in(ch, kExtraSlots, lim.extra_slots);
  c.steps = choose_in(ch, kTokens, lim.tokens);
  c.act_dtype = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.state_dtype = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.ring_dtype = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.out_dtype = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.index_dtype = choose(ch, std::span<const ScalarType>(lim.index_dtypes));
  c.a_3d = ch.coin();
  c.dt_bias_2d = ch.coin();
  c.l2norm = ch.coin();
  c.force_flush = ch.coin(3, 1);
  c.envelope = lim.strided && ch.coin();
  if (ch.coin()) c.lower_bound = choose(ch, all(kLowerBounds));
  c.pad_fraction = choose(ch, all(kPadFractions));
  c.flush_prob = choose(ch, all(kFlushProbs));
  c.random_cursors = ch.coin(3, 1);
  c.values = ch.coin(1, 4) ? ValueMode::Adversarial : ValueMode::WellConditioned;
  c.seed = ch.bits();
  // The ring variants (drawn last: every earlier field draws as before): operators without
  // them fit them away.
  c.circular = ch.coin(1, 2);
  c.prefix_gates = ch.coin(1, 3);
  c.predecayed_keys = ch.coin(1, 3);
  fit_budget(c, lim);
  return c;
}

CallConfig sample_call_config(Chooser& ch, const SampleLimits& lim) {
  CallConfig c;
  c.B = choose_in(ch, kCallRows, lim.rows);
  c.H = choose_in(ch, kCallQueryHeads, lim.query_heads);
  c.group = choose_in(ch, kCallGroups, lim.group);
  c.K = head_dim(ch, lim.K);
  c.V = head_dim(ch, lim.V);
  c.L = choose_in(ch, kRingLengths, lim.ring_length);
  const int64_t live_rows = ch.integer(0, c.B);
  c.slots = live_rows + choose_in(ch, kExtraSlots, lim.extra_slots);
  c.a_3d = ch.coin();
  c.dt_2d = ch.coin();
  c.force_flush = ch.coin();
  c.envelope_pad = lim.strided && ch.coin() ? choose_in(ch, kEnvelopePads, {1, 300}) : 0;
  c.unit_stride = choose(ch, all(kUnitStrides));
  c.null_strides = ch.coin();
  c.act = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.state = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.ring = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.out = choose(ch, std::span<const ScalarType>(lim.float_dtypes));
  c.index = choose(ch, std::span<const ScalarType>(lim.index_dtypes));
  c.device = choose(ch, all(kDevices));
  const bool tie_backend = ch.coin();
  c.backend = !tie_backend                     ? kda::Backend::Any
              : c.device.device_type == kDLCPU ? kda::Backend::Cpu
                                               : kda::Backend::Cuda;
  return c;
}

}  // namespace kda::engine
