// DeviceMirror: runs the CUDA step on HOST tensors. It keeps one DeviceTensor (with guard
// regions) per host tensor it has seen (keyed by the host data pointer, so device buffers
// stay put across steps and can sit in a captured CUDA graph), uploads every argument,
// poisons out with NaN, launches, and downloads the tensors the step writes.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "kernels/device_tensor.hpp"

namespace kda::engine {

class DeviceMirror {
 public:
  DeviceMirror();
  ~DeviceMirror();
  DeviceMirror(const DeviceMirror&) = delete;
  DeviceMirror& operator=(const DeviceMirror&) = delete;

  // Uploads every tensor of `host` (creating device copies on first sight) and returns the
  // same arguments over the device copies.
  StepArgs upload(const StepArgs& host);
  // Fills the device out with 0xFF bytes (NaN in every float dtype).
  void poison_out(const StepArgs& host);
  // Copies out, initial_state and the three rings back into the host tensors.
  void download_written(const StepArgs& host);
  // After a refused step: downloads what the backend may have written, except an out that
  // still holds the mirror's own poison in every byte (the backend did not write it, so the
  // host keeps its bytes from before the step).
  void download_after_refusal(const StepArgs& host);
  // upload + poison + launch(device args, stream, status tensor) + synchronize +
  // download_written. Throws whatever the launch throws (after which nothing is downloaded).
  using Launch = std::function<void(const StepArgs& device, cudaStream_t stream, DLTensor* status)>;
  void step(const StepArgs& host, const Launch& launch);
  // step() with our kernel: kda::cuda::replayssm_decode, reporting into the status tensor.
  void step(const StepArgs& host);

  // The per-row status of the last launch (kda::cuda::RowStatus flags), B values.
  std::vector<int32_t> row_status();
  DLTensor* status_tensor(int64_t B);  // created (B int32) on first use
  // True when every device tensor's guard regions still hold the pattern.
  bool guards_intact() const;
  cudaStream_t stream() const { return stream_; }
  cuda::DeviceTensor& device_of(const DLTensor& host);

 private:
  void download_state_and_rings(const StepArgs& host);
  std::map<const void*, std::unique_ptr<cuda::DeviceTensor>> tensors_;
  std::unique_ptr<cuda::DeviceTensor> status_;
  HostTensor status_host_;
  cudaStream_t stream_ = nullptr;
};

// Throws std::runtime_error naming `what` if e is not cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

}  // namespace kda::engine
