#include "engine/backends/cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <exception>
#include <stdexcept>
#include <utility>

#include "engine/backends/device_mirror.hpp"
#include "engine/backends/gpu_probe.hpp"
#include "engine/backends/cuda_kernel.hpp"

namespace kda::engine {
namespace {

// The copy a GPU backend's step time is set beside: large enough that the L2 cache holds
// little of it (the benchmark copies 1 GiB).
constexpr std::size_t kCopyBytes = std::size_t{256} << 20;
constexpr int kCopyReps = 10;

// Runs a launch through the mirror, whole or in the two halves of Backend::start_step and
// finish_step; a refused call still downloads what the step may have written, so that
// "nothing changed" is judged on the device's bytes. A refusal at the launch is held until
// finish(), so that the host tensors keep their bytes until then.
class MirroredStep {
 public:
  void run(DeviceMirror& m, const StepArgs& host, const DeviceMirror::Launch& launch) {
    start(m, host, launch);
    finish();
  }
  void start(DeviceMirror& m, const StepArgs& host, const DeviceMirror::Launch& launch) {
    mirror_ = &m;
    host_ = host;
    try {
      m.start(host, launch);
    } catch (...) {
      refusal_ = std::current_exception();
    }
  }
  void finish() {
    DeviceMirror* m = std::exchange(mirror_, nullptr);
    if (m == nullptr) throw std::logic_error("a step finished that was not started");
    try {
      if (const std::exception_ptr refusal = std::exchange(refusal_, nullptr)) std::rethrow_exception(refusal);
      m->finish();
    } catch (...) {
      m->download_after_refusal(host_);
      throw;
    }
  }

 private:
  DeviceMirror* mirror_ = nullptr;  // the mirror of a started step
  StepArgs host_;
  std::exception_ptr refusal_;
};

class CudaKernelBackend final : public Backend {
 public:
  CudaKernelBackend(int device, const OperatorDescription& op, const CudaKernel& kernel)
      : device_(device), op_(op), kernel_(kernel) {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    mirror_ = std::make_unique<DeviceMirror>();
    // Every dtype, index type, layout and size the contract allows (the launcher picks a
    // kernel per K and L); the tensors live on the GPU.
    envelope_.device = Device::Cuda;
    envelope_.invalid_rows = InvalidRows::Flag;  // kernels/row_status.hpp
    envelope_.ring_modes = kernel_.ring_modes;   // the ring variants its launcher computes
  }
  std::string name() const override { return fmt::format("cuda:{}", device_); }
  const Envelope& envelope() const override { return envelope_; }
  const OperatorDescription& op() const override { return op_; }
  void step(const StepArgs& host) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    step_.run(*mirror_, host, launch_);
  }
  bool start_step(const StepArgs& host) override {
    try {
      check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    } catch (...) {
      return false;  // step() then raises it
    }
    step_.start(*mirror_, host, launch_);
    return true;
  }
  void finish_step() override { step_.finish(); }
  std::optional<std::vector<int32_t>> row_status() override { return mirror_->row_status(); }
  bool guards_intact() const override { return mirror_->guards_intact(); }
  StepTimes time_steps(const StepArgs& host, const TimingBudget& b) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    return {mirror_->time_launches(host, launch_, b.min_runs, b.max_runs, b.seconds), "CUDA events"};
  }
  double copy_gbps() override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    return DeviceMirror::copy_gbps(kCopyBytes, kCopyReps);
  }

 private:
  int device_;
  const OperatorDescription& op_;
  CudaKernel kernel_;
  std::unique_ptr<DeviceMirror> mirror_;
  Envelope envelope_;
  MirroredStep step_;
  const DeviceMirror::Launch launch_ = [this](const StepArgs& dev, cudaStream_t s, DLTensor* status) {
    if (!kernel_.validates) op_.validate(dev, kda::Backend::Cuda);
    kernel_.launch(dev, s, status);
  };
};

class CudaPluginBackend final : public Backend {
 public:
  CudaPluginBackend(const kda_plugin& p, const std::string& what)
      : p_(p), what_(what), name_(fmt::format("plugin:{}", p.name ? p.name : what)), envelope_(Envelope::of_plugin(p)) {}
  std::string name() const override { return name_; }
  std::string spec() const override { return "plugin:" + what_; }
  const Envelope& envelope() const override { return envelope_; }
  Profile profile() const override { return p_.profile == KDA_PROFILE_TRITON ? Profile::Triton : Profile::Helion; }
  const OperatorDescription& op() const override { return find_operator(p_.op); }
  void step(const StepArgs& host) override {
    // The device is first touched here, not when the backend is made: `check --isolate` makes
    // backends in its parent (names, envelopes, replay lines) and forks each case, and a
    // child cannot use a CUDA context its parent created.
    if (!mirror_) {
      if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw std::runtime_error(why);
      mirror_ = std::make_unique<DeviceMirror>();
    }
    step_.run(*mirror_, host, launch_);
  }
  // Only once the device is set up (the first step() does it and raises what stops it).
  bool start_step(const StepArgs& host) override {
    if (!mirror_) return false;
    step_.start(*mirror_, host, launch_);
    return true;
  }
  void finish_step() override { step_.finish(); }
  bool guards_intact() const override { return !mirror_ || mirror_->guards_intact(); }
  StepTimes time_steps(const StepArgs& host, const TimingBudget& b) override {
    if (!mirror_) step(host);  // sets the device up, or raises what stops it
    return {mirror_->time_launches(host, launch_, b.min_runs, b.max_runs, b.seconds), "CUDA events"};
  }
  double copy_gbps() override {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw std::runtime_error(why);
    return DeviceMirror::copy_gbps(kCopyBytes, kCopyReps);
  }

 private:
  kda_plugin p_;
  std::string what_, name_;
  Envelope envelope_;
  std::unique_ptr<DeviceMirror> mirror_;
  MirroredStep step_;
  const DeviceMirror::Launch launch_ = [this](const StepArgs& dev, cudaStream_t s, DLTensor*) {
    call_plugin(p_, name_, dev, s);
  };
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device, const OperatorDescription& op) {
  const CudaKernel* kernel = cuda_kernel_of(op.name);
  if (kernel == nullptr) throw std::runtime_error(fmt::format("no CUDA kernel for {} in this build", op.name));
  if (device < 0) {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw std::runtime_error(why);
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  } else {
    const GpuProbe p = probe_gpus();
    if (p.devices.empty()) throw std::runtime_error(p.reason);
    bool usable = false;
    for (int d : p.devices) usable |= d == device;
    if (!usable) throw std::runtime_error(fmt::format("GPU {} is not usable here", device));
  }
  return std::make_unique<CudaKernelBackend>(device, op, *kernel);
}

std::unique_ptr<Backend> cuda_plugin_backend(const kda_plugin& description, const std::string& what) {
  if (const std::string why = gpu_unavailable_reason_from_a_child(); !why.empty())
    throw std::runtime_error(fmt::format("{}: a CUDA plugin, but {}", what, why));
  return std::make_unique<CudaPluginBackend>(description, what);
}

}  // namespace kda::engine
