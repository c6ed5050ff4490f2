#include "engine/description/suite_limits.hpp"

namespace kda::engine {
namespace limits {

SampleLimits gpu_suites(double work_budget) {
  SampleLimits l;
  l.rows = {1, 8};
  l.query_heads = {1, 3};
  l.group = {1, 4};
  l.K = {1, 256};
  l.V = {1, 128};
  l.ring_length = {1, 70};
  l.tokens = {1, 24};
  l.work_budget = work_budget;
  return l;
}

SampleLimits reference_suites(int64_t max_tokens, double work_budget) {
  SampleLimits l;
  l.rows = {1, 4};
  l.query_heads = {1, 2};
  l.group = {1, 8};
  l.K = {16, 256};
  l.V = {16, 256};
  l.ring_length = {1, 64};
  l.tokens = {1, max_tokens};
  l.work_budget = work_budget;
  return l;
}

SampleLimits check_cases(double work_budget) {
  SampleLimits l;
  l.rows = {1, 8};
  l.query_heads = {1, 4};
  l.group = {1, 8};
  l.K = {1, 128};
  l.V = {1, 128};
  l.ring_length = {1, 40};
  l.tokens = {1, 24};
  l.work_budget = work_budget;
  return l;
}

SampleLimits reference_fuzzing() {
  SampleLimits l;
  l.rows = {1, 4};
  l.query_heads = {1, 3};
  l.group = {1, 4};
  l.K = {1, 32};
  l.V = {1, 32};
  l.ring_length = {1, 17};
  l.tokens = {1, 24};
  l.work_budget = 2e5;
  return l;
}

SampleLimits contract_calls() {
  SampleLimits l;
  l.rows = {1, 64};
  l.query_heads = {1, 8};
  l.group = {1, 8};
  l.K = {16, 256};
  l.V = {16, 256};
  l.ring_length = {1, 64};
  l.extra_slots = {0, 3};
  return l;
}

SampleLimits sweep_calls() {
  SampleLimits l = contract_calls();
  l.rows = {1, 1024};
  l.K = {1, 256};
  l.V = {1, 256};
  return l;
}

}  // namespace limits
}  // namespace kda::engine
