// The operator-generic pieces of a sample space: integer ranges, weighted unions of ranges,
// and the limits a suite (engine/description/suite_limits.hpp) or a backend's envelope puts on a
// space. An operator's sample space is data in these terms plus its description's sample
// functions over a Chooser (OperatorDescription::sample_case, sample_call).
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "contract/scalar_type.hpp"
#include "engine/description/chooser.hpp"

namespace kda::engine {

struct IntRange {
  int64_t lo = 0, hi = 0;  // inclusive
  bool contains(int64_t x) const { return lo <= x && x <= hi; }
  bool empty() const { return hi < lo; }
  IntRange clipped_to(IntRange limit) const { return {std::max(lo, limit.lo), std::min(hi, limit.hi)}; }
};

// A weighted union of ranges, such as a ring length that is mostly short: {1}, 2..16, 17..70.
struct WeightedRange {
  IntRange range;
  uint32_t weight = 1;
};

// A value from the ranges clipped to `limit`, by weight; the ranges that the limit empties
// drop out (std::invalid_argument when all do).
int64_t choose_in(Chooser& c, std::span<const WeightedRange> ranges, IntRange limit);

// Where a suite samples. The fields name roles every decode operator has (rows, heads, head
// dimensions, tokens, dtypes of the float and index tensors, strided layouts); an operator
// without a role ignores its field (the plain packed decode has no ring length L).
struct SampleLimits {
  IntRange rows{1, 8};         // B
  IntRange query_heads{1, 3};  // H
  IntRange group{1, 8};        // HV / H
  IntRange K{1, 256}, V{1, 256};
  IntRange ring_length{1, 70};  // L
  IntRange extra_slots{0, 3};   // slots - B
  IntRange tokens{1, 24};       // steps of a rollout
  double work_budget = 2e7;     // of the operator's work measure (rollout_work for ReplaySSM)
  std::vector<ScalarType> float_dtypes{ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16};
  std::vector<ScalarType> index_dtypes{ScalarType::Int32, ScalarType::Int64};
  bool strided = true;  // strided (envelope) layouts may be drawn
};

}  // namespace kda::engine
