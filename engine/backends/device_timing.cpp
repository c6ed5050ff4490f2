// DeviceMirror's timing (device_mirror.hpp): a GPU backend's launch between CUDA events on the
// mirror's stream, and the device-to-device copy its speed is set beside.
#include <algorithm>
#include <chrono>

#include "engine/backends/device_mirror.hpp"

namespace kda::engine {
namespace {

// A pair of events around work queued on a stream; elapsed() waits for the second.
class EventPair {
 public:
  EventPair() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { check_cuda(cudaEventRecord(start_, s), "cudaEventRecord"); }
  void stop(cudaStream_t s) { check_cuda(cudaEventRecord(stop_, s), "cudaEventRecord"); }
  double elapsed_us() {
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e3 * static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::vector<double> DeviceMirror::time_launches(const StepArgs& host, const Launch& launch, int64_t min_runs,
                                                int64_t max_runs, double seconds) {
  const StepArgs dev = upload(host);
  DLTensor* status = status_tensor(host.ssm_state_indices->shape[0]);
  launch(dev, stream_, status);  // untimed: the first launch pays for loading the code
  synchronize("the untimed launch");
  EventPair events;
  std::vector<double> us;
  double total = 0;
  while (static_cast<int64_t>(us.size()) < max_runs && (static_cast<int64_t>(us.size()) < min_runs || total < 1e6 * seconds)) {
    events.start(stream_);
    launch(dev, stream_, status);
    events.stop(stream_);
    us.push_back(events.elapsed_us());
    total += us.back();
  }
  step_results_ = false;  // the device holds the timed launches' writes, not a step's read-backs
  return us;
}

double DeviceMirror::copy_gbps(std::size_t bytes, int reps) {
  void* from = nullptr;
  void* to = nullptr;
  check_cuda(cudaMalloc(&from, bytes), "cudaMalloc (copy)");
  if (const cudaError_t e = cudaMalloc(&to, bytes); e != cudaSuccess) {
    cudaFree(from);
    check_cuda(e, "cudaMalloc (copy)");
  }
  std::vector<double> us;
  {
    EventPair events;
    for (int i = 0; i <= reps; ++i) {
      events.start(nullptr);
      check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, nullptr), "cudaMemcpyAsync");
      events.stop(nullptr);
      const double t = events.elapsed_us();
      if (i > 0) us.push_back(t);  // the first copy is untimed
    }
  }
  cudaFree(from);
  cudaFree(to);
  std::sort(us.begin(), us.end());
  return 2.0 * static_cast<double>(bytes) / (us[us.size() / 2] * 1e3);
}

}  // namespace kda::engine
