// Timing with CUDA events: each timed unit (one launch, a graph replay, or a whole cycle of
// launches) sits between its own pair of events, so the median is over units, and a unit
// that waits for the host (small eager launches) shows the wait. Graphs: one instantiated
// graph per unit index, so replays rotate over input sets like eager launches do.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/reports/step_stats.hpp"

namespace kda::bench {

// The statistics are the engine's (engine/reports/step_stats.hpp), shared with `check --time`.
using engine::Stats;
using engine::summarize;

// Enqueues unit i on the stream.
using Enqueue = std::function<void(int64_t i, cudaStream_t stream)>;

struct TimingPlan {
  int64_t warmup = 10;        // units run before timing
  int64_t min_samples = 100;  // timed units, at least
  int64_t max_samples = 2000;
  double target_seconds = 0.2;  // timed units are added up to about this much device time
};

// Runs plan.warmup units (timed as a whole to estimate a unit), then the timed units, each
// between two events; returns the per-step statistics. Unit indices continue across the
// warm-up, so a rotation over input sets does not restart.
Stats time_units(cudaStream_t stream, const Enqueue& enqueue, const TimingPlan& plan, int64_t steps_per_unit);

// n instantiated graphs; graph i holds what enqueue(i) enqueues.
class GraphSet {
 public:
  GraphSet(cudaStream_t stream, int64_t n, const Enqueue& enqueue);
  ~GraphSet();
  GraphSet(const GraphSet&) = delete;
  GraphSet& operator=(const GraphSet&) = delete;
  void launch(int64_t i, cudaStream_t stream) const;
  int64_t size() const { return static_cast<int64_t>(execs_.size()); }

 private:
  std::vector<cudaGraphExec_t> execs_;
};

// Device-to-device copy of `bytes` from src to dst, repeated; returns per-copy statistics.
// Bandwidth = 2 * bytes (read + written) / median.
Stats time_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int64_t reps);

// Throws std::runtime_error naming `what` when e is not cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

}  // namespace kda::bench
