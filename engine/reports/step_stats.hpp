// Per-step statistics of timed units (median, nearest-rank percentiles): the benchmark's and
// `check --time`'s (CPU code, so the CPU tests cover them).
#pragma once
#include <cstdint>
#include <vector>

namespace kda::engine {

struct Stats {
  double median_us = 0, p10_us = 0, p90_us = 0;  // per step
  int64_t samples = 0;
  // Mean host time per step spent inside the enqueue calls of the timed units (the launch
  // cost on the CPU: validation + launch, or a graph launch). When the GPU is the
  // bottleneck this cost is hidden from the event times.
  double host_enqueue_us = 0;
};

// Median and 10th/90th percentiles (nearest rank) of per-unit times, each divided by
// steps_per_unit. Empty input gives samples = 0.
Stats summarize(std::vector<double> unit_us, int64_t steps_per_unit);

}  // namespace kda::engine
