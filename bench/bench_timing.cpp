#include "bench/bench_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kda::bench {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

namespace {

struct EventPool {
  std::vector<cudaEvent_t> events;
  explicit EventPool(std::size_t n) : events(n) {
    for (auto& e : events) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  }
  ~EventPool() {
    for (auto e : events) cudaEventDestroy(e);
  }
};

float elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms * 1000.0f;
}

}  // namespace

Stats time_units(cudaStream_t stream, const Enqueue& enqueue, const TimingPlan& plan, int64_t steps_per_unit) {
  EventPool warm(2);
  int64_t next = 0;
  check_cuda(cudaEventRecord(warm.events[0], stream), "cudaEventRecord");
  for (int64_t i = 0; i < plan.warmup; ++i) enqueue(next++, stream);
  check_cuda(cudaEventRecord(warm.events[1], stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(warm.events[1]), "warm-up");
  check_cuda(cudaGetLastError(), "warm-up launches");
  const double unit_us = plan.warmup > 0 ? elapsed_us(warm.events[0], warm.events[1]) / plan.warmup : 1000.0;
  const auto wanted = static_cast<int64_t>(plan.target_seconds * 1e6 / std::max(unit_us, 1e-3));
  const int64_t samples = std::clamp(wanted, plan.min_samples, std::max(plan.min_samples, plan.max_samples));

  EventPool ev(2 * static_cast<std::size_t>(samples));
  std::chrono::steady_clock::duration host{};
  for (int64_t i = 0; i < samples; ++i) {
    check_cuda(cudaEventRecord(ev.events[2 * i], stream), "cudaEventRecord");
    const auto t0 = std::chrono::steady_clock::now();
    enqueue(next++, stream);
    host += std::chrono::steady_clock::now() - t0;
    check_cuda(cudaEventRecord(ev.events[2 * i + 1], stream), "cudaEventRecord");
  }
  check_cuda(cudaStreamSynchronize(stream), "timed launches");
  check_cuda(cudaGetLastError(), "timed launches");
  std::vector<double> us(static_cast<std::size_t>(samples));
  for (int64_t i = 0; i < samples; ++i) us[i] = elapsed_us(ev.events[2 * i], ev.events[2 * i + 1]);
  Stats st = summarize(std::move(us), steps_per_unit);
  st.host_enqueue_us = std::chrono::duration<double, std::micro>(host).count() / static_cast<double>(samples * steps_per_unit);
  return st;
}

GraphSet::GraphSet(cudaStream_t stream, int64_t n, const Enqueue& enqueue) {
  for (int64_t i = 0; i < n; ++i) {
    cudaGraph_t graph = nullptr;
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    enqueue(i, stream);
    check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check_cuda(e, "cudaGraphInstantiate");
    execs_.push_back(exec);
  }
}

GraphSet::~GraphSet() {
  for (auto e : execs_) cudaGraphExecDestroy(e);
}

void GraphSet::launch(int64_t i, cudaStream_t stream) const {
  check_cuda(cudaGraphLaunch(execs_[static_cast<std::size_t>(i % size())], stream), "cudaGraphLaunch");
}

Stats time_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int64_t reps) {
  TimingPlan plan;
  plan.warmup = 3;
  plan.min_samples = reps;
  plan.max_samples = reps;
  return time_units(
      stream,
      [&](int64_t, cudaStream_t s) { check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "copy"); },
      plan, 1);
}

}  // namespace kda::bench
