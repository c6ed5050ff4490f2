// Times the decode step of one benchmark case: append steps (every row at the middle of
// the ring), flush steps (every row at cursor L-1 with force_flush set, so the whole ring
// is read), and the L-step cycle (cursors 0, 1, ..., L-1; the last one flushes), eagerly
// and, for small batches, as CUDA graph replays. With L = 1 every step is a flush: the
// plain decode, timed once.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_case.hpp"
#include "bench/bench_timing.hpp"
#include "bench/bench_workspace.hpp"
#include "engine/reports/bytes_model.hpp"

namespace kda::bench {

// Plain: a ringed operator's step at L = 1; PackedDecode: the step of an operator without a
// ring (the plain packed decode), the case's own or the one its row of the table of launchers
// times beside its L = 1 step on the same tensors (engine/backends/cuda_kernel.hpp's timed_beside).
enum class StepKind { Append, Flush, Cycle, Plain, PackedDecode };
std::string kind_name(StepKind k);

struct Measurement {
  BenchCase c;
  StepKind kind = StepKind::Append;
  int64_t cursor = 0;  // append: the rows' cursor; flush: L-1; cycle/plain: -1 / 0
  int64_t sets = 1;
  StepBytes bytes;     // model bytes per step (cycle: the mean step)
  Stats eager;
  std::optional<Stats> graph;
  // The time the bandwidth is computed from: the graph median where measured, else eager.
  double time_us() const { return graph ? graph->median_us : eager.median_us; }
  double gbps() const { return bytes.total() / (time_us() * 1e3); }
};

struct RunOptions {
  bool append = true, flush = true, cycle = true;
  int64_t graph_max_batch = 64;  // graphs are timed for B <= this
  TimingPlan plan;
  int64_t cycle_min_samples = 5;  // cycles timed, at least (each holds L launches)
  bool profile = false;           // ncu mode: 2 warm-up launches and 1 launch per kind, no graphs
};

// Runs every selected kind on the workspace (already filled); checks launches.
std::vector<Measurement> run_case(const BenchCase& c, Workspace& ws, const RunOptions& o, cudaStream_t stream);

// Non-finite values in out of input set 0 after the runs (the benchmark never times NaNs).
int64_t count_nonfinite_out(const BenchCase& c, Workspace& ws);

}  // namespace kda::bench
