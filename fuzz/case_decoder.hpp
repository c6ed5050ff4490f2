// Bytes -> a VALID CaseConfig (cases/case_config.hpp) within size limits, for the reference
// and kernel fuzzers. Every field comes from the bytes: dims (K and V powers of two from 1,
// GQA ratios 1/2/4, L from 1, slots from B), each tensor's float dtype, int32/int64 indices,
// 2-D/3-D a, 1-D/2-D dt_bias, L2 norm, force_flush, envelope layouts, the gate (softplus, or
// a bounded sigmoid with lower_bound in [-16, 0]), token count, padding and forced-flush
// probabilities, divergent cursors, WellConditioned or Adversarial values, and the seed.
// A work budget (rows x value heads x V x K x (L/2 + 2) x tokens) keeps one input fast:
// tokens, then rows, then heads are cut until it fits. An empty input gives B=1 H=1 HV=1
// K=V=1 L=1 slots=1 steps=1 (the smallest case).
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include "cases/case_config.hpp"

namespace kda::fuzz {

struct CaseLimits {
  int64_t max_B = 4, max_H = 3, max_log2_K = 5, max_log2_V = 5, max_L = 17, max_extra_slots = 3, max_steps = 24;
  double work_budget = 2e5;  // of rollout_work (cases/case_config.hpp)
};

CaseConfig decode_case(FuzzedDataProvider& fdp, const CaseLimits& limits);

}  // namespace kda::fuzz
