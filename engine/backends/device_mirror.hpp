// DeviceMirror: runs the CUDA step on HOST tensors. It keeps one DeviceTensor (with guard
// regions) per host tensor of the current step (keyed by the host data pointer, so device
// buffers stay put across steps and can sit in a captured CUDA graph); a buffer no longer in
// use goes to a small pool, from which a later case's tensor of a size that fits takes it
// (the guard after the storage moves with the size), so a fuzz target or a suite does not
// allocate per case. A step uploads every argument, poisons out with NaN, launches, and
// downloads the tensors the step writes, the row status and every guard region, all queued
// on the mirror's stream through pinned staging memory, with one synchronization at the end.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "kernels/device_tensor.hpp"

namespace kda::engine {

// Copies queued on a stream as one batch (cudaMemcpyBatchAsync: one call for the dozens of
// small copies of a step), or one call each where the runtime or driver has no batches.
class CopyBatch {
 public:
  void add(void* to, const void* from, std::size_t bytes);
  // Queues the added copies on `stream` (in stream order as a whole) and forgets them.
  void queue(cudaStream_t stream, const char* what);

 private:
  std::vector<void*> to_;
  std::vector<const void*> from_;
  std::vector<std::size_t> bytes_;
  bool batched_ = true;
};

class DeviceMirror {
 public:
  DeviceMirror();
  ~DeviceMirror();
  DeviceMirror(const DeviceMirror&) = delete;
  DeviceMirror& operator=(const DeviceMirror&) = delete;

  // Uploads every tensor of `host` (binding device buffers on first sight) and returns the
  // same arguments over the device buffers. The copies are queued on stream(): work queued
  // there later sees them; a host tensor may change as soon as this returns.
  StepArgs upload(const StepArgs& host);
  // Fills the device out with 0xFF bytes (NaN in every float dtype), queued on stream().
  void poison_out(const StepArgs& host);
  // Copies out, initial_state and the three rings back into the host tensors (waits for
  // the work queued on stream()).
  void download_written(const StepArgs& host);
  // After a refused step: downloads what the backend may have written, except an out that
  // still holds the mirror's own poison in every byte (the backend did not write it, so the
  // host keeps its bytes from before the step).
  void download_after_refusal(const StepArgs& host);
  // upload + poison + launch(device args, stream, status tensor) + download_written, the row
  // status and the guards, with one synchronization. Throws whatever the launch throws
  // (after which nothing is downloaded).
  using Launch = std::function<void(const StepArgs& device, cudaStream_t stream, DLTensor* status)>;
  void step(const StepArgs& host, const Launch& launch);
  // step() in two halves: start() queues the uploads, the poison, the launch and every
  // read-back and returns without waiting (the host tensors keep their bytes: the uploads
  // were copied to staging memory); finish() waits once and copies the read-backs into the
  // host tensors, which must still be where they were. Nothing else may use the mirror in
  // between. A launch that throws leaves nothing to finish.
  void start(const StepArgs& host, const Launch& launch);
  void finish();
  // step() with our kernel: kda::cuda::replayssm_decode, reporting into the status tensor.
  void step(const StepArgs& host);

  // Backend::time_steps of a GPU backend (engine/backends/device_timing.cpp): uploads `host` once,
  // launches once untimed, then times launches between CUDA events on stream() as the budget
  // says; the host tensors are not written.
  std::vector<double> time_launches(const StepArgs& host, const Launch& launch, int64_t min_runs, int64_t max_runs,
                                    double seconds);
  // A device-to-device copy's bandwidth (GB/s, read + written), median of `reps` copies of `bytes`.
  static double copy_gbps(std::size_t bytes, int reps);

  // The per-row status of the last launch (kda::cuda::RowStatus flags), B values.
  std::vector<int32_t> row_status();
  DLTensor* status_tensor(int64_t B);  // created (B int32) on first use
  // True when every device buffer's guard regions still hold the pattern (after a step():
  // as that step left them). A broken guard is reported once, then filled again.
  bool guards_intact();
  cudaStream_t stream() const { return stream_; }
  // The device copy of a host tensor (bound and uploaded on first sight).
  cuda::DeviceTensor& device_of(const DLTensor& host);

 private:
  // The device buffer for `host` (same layout), taken from the pool or allocated when new;
  // its bytes are whatever it held. `fresh` says whether it was not bound to host before.
  cuda::DeviceTensor& bind(const DLTensor& host, bool& fresh);
  // Binds every tensor of a step, and releases the buffers of other tensors to the pool;
  // returns the staging bytes of its upload.
  std::size_t bind_all(const StepArgs& host);
  // Buffers not bound to a tensor of `in_use` go to the pool (the pool keeps a few).
  void release_others(const std::vector<const void*>& in_use);
  // Copies the bound tensors of `host` through `stage` and queues their uploads.
  StepArgs queue_upload(const StepArgs& host, std::byte* stage);
  // Pinned staging memory of at least `bytes`, after any copy still using it finished.
  std::byte* staging(std::size_t bytes);
  void synchronize(const char* what);
  // Queues device -> staging copies of every guard region (the buffers' and the status
  // tensor's) from `at` on; returns where they end. guards_hold() reads `bytes` of them
  // after a synchronization.
  std::size_t queue_guard_copies(std::byte* base, std::size_t at);
  bool guards_hold(const std::byte* base, std::size_t bytes) const;
  // After a broken guard was reported: the pattern again everywhere, so that a later case
  // on the same buffers is judged on its own writes.
  void refill_all_guards();
  void queue_download(const DLTensor& host, std::byte* base, std::size_t& at, std::vector<std::pair<const DLTensor*, std::size_t>>& done);

  std::map<const void*, std::unique_ptr<cuda::DeviceTensor>> tensors_;
  std::vector<std::unique_ptr<cuda::DeviceTensor>> pool_;
  std::unique_ptr<cuda::DeviceTensor> status_;
  HostTensor status_host_;
  std::byte* staging_ = nullptr;
  std::size_t staging_bytes_ = 0;
  bool staging_busy_ = false;  // copies from or to staging_ may still run on the stream
  // What the last step() read back, valid until anything else touches the device.
  bool step_results_ = false, guards_ok_ = true;
  std::vector<int32_t> last_status_;
  // A started step's read-backs, in staging memory until finish() copies them.
  struct Download {
    std::byte* host = nullptr;
    std::size_t at = 0, bytes = 0;
  };
  struct Pending {
    std::byte* stage = nullptr;  // null: no step started
    std::array<Download, 5> downloads{};  // out, initial_state and the three rings
    std::size_t count = 0, status_at = 0, guards_at = 0, guards_end = 0;
    int64_t B = 0;
  };
  Pending pending_;
  CopyBatch copies_;
  cudaStream_t stream_ = nullptr;
};

// Throws std::runtime_error naming `what` if e is not cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

}  // namespace kda::engine
