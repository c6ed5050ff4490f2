#include "engine/description/suite_limits.hpp"

namespace kda::engine::limits {

// By field name, in SampleLimits' order; a field left out keeps its default (sample_space.hpp).
SampleLimits gpu_suites(double work_budget) {
  return {.rows = {1, 8}, .query_heads = {1, 3}, .group = {1, 4}, .K = {1, 256}, .V = {1, 128},
          .ring_length = {1, 70}, .tokens = {1, 24}, .work_budget = work_budget};
}

SampleLimits reference_suites(int64_t max_tokens, double work_budget) {
  return {.rows = {1, 4}, .query_heads = {1, 2}, .group = {1, 8}, .K = {16, 256}, .V = {16, 256},
          .ring_length = {1, 64}, .tokens = {1, max_tokens}, .work_budget = work_budget};
}

SampleLimits check_cases(double work_budget) {
  return {.rows = {1, 8}, .query_heads = {1, 4}, .group = {1, 8}, .K = {1, 128}, .V = {1, 128},
          .ring_length = {1, 40}, .tokens = {1, 24}, .work_budget = work_budget};
}

SampleLimits reference_fuzzing() {
  return {.rows = {1, 4}, .query_heads = {1, 3}, .group = {1, 4}, .K = {1, 32}, .V = {1, 32},
          .ring_length = {1, 17}, .tokens = {1, 24}, .work_budget = 2e5};
}

SampleLimits contract_calls() {
  return {.rows = {1, 64}, .query_heads = {1, 8}, .group = {1, 8}, .K = {16, 256}, .V = {16, 256},
          .ring_length = {1, 64}, .extra_slots = {0, 3}};
}

SampleLimits sweep_calls() {
  SampleLimits l = contract_calls();
  l.rows = {1, 1024};
  l.K = {1, 256};
  l.V = {1, 256};
  return l;
}

}  // namespace kda::engine::limits
