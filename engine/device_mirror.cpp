#include "engine/device_mirror.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "contract/tensor_view.hpp"
#include "engine/phase_times.hpp"
#include "kernels/replayssm_decode.hpp"

namespace kda::engine {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

DeviceMirror::DeviceMirror() { // A blocking stream: it waits for the synchronous cudaMemcpy/cudaMemset of the uploads.
  check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate"); }

DeviceMirror::~DeviceMirror() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

cuda::DeviceTensor& DeviceMirror::device_of(const DLTensor& host) {
  auto& slot = tensors_[static_cast<const char*>(host.data) + host.byte_offset];
  // A new host tensor at a recycled address gets a fresh device copy.
  if (!slot || slot->dl().dtype.code != host.dtype.code || slot->dl().dtype.bits != host.dtype.bits ||
      shape_of(slot->dl()) != shape_of(host) || strides_of(slot->dl()) != strides_of(host))
    slot = timed(Phase::Allocate, [&] { return std::make_unique<cuda::DeviceTensor>(host); });
  return *slot;
}

StepArgs DeviceMirror::upload(const StepArgs& h) {
  StepArgs d = h;
  auto put = [this](const DLTensor* t) -> DLTensor* {
    if (t == nullptr) return nullptr;
    cuda::DeviceTensor& dev = device_of(*t);
    dev.upload(*t);
    return dev.get();
  };
  d.mixed_qkv = put(h.mixed_qkv);
  d.a = put(h.a);
  d.b = put(h.b);
  d.A_log = put(h.A_log);
  d.dt_bias = put(h.dt_bias);
  d.initial_state = put(h.initial_state);
  d.d_cache = put(h.d_cache);
  d.k_cache = put(h.k_cache);
  d.g_cache = put(h.g_cache);
  d.out = put(h.out);
  d.ssm_state_indices = put(h.ssm_state_indices);
  d.write_pos = put(h.write_pos);
  d.force_flush = put(h.force_flush);
  return d;
}

void DeviceMirror::poison_out(const StepArgs& h) { device_of(*h.out).fill_bytes(0xFF); }

void DeviceMirror::download_state_and_rings(const StepArgs& h) {
  for (DLTensor* t : {h.initial_state, h.d_cache, h.k_cache, h.g_cache})
    if (t != nullptr) device_of(*t).download(*t);  // an operator without rings has none
}

void DeviceMirror::download_written(const StepArgs& h) {
  device_of(*h.out).download(*h.out);
  download_state_and_rings(h);
}

void DeviceMirror::download_after_refusal(const StepArgs& h) {
  const std::vector<std::byte> out = device_of(*h.out).storage_bytes();
  const bool untouched = std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xFF}; });
  if (!untouched) device_of(*h.out).download(*h.out);
  download_state_and_rings(h);
}

DLTensor* DeviceMirror::status_tensor(int64_t B) {
  if (!status_ || status_host_.shape()[0] != B) {
    status_host_ = HostTensor(ScalarType::Int32, {B});
    for (int64_t i = 0; i < B; ++i) status_host_.set_linear(i, -1);  // "never written" marker
    status_ = std::make_unique<cuda::DeviceTensor>(status_host_);
  }
  return status_->get();
}

std::vector<int32_t> DeviceMirror::row_status() {
  if (!status_) return {};
  status_->download(status_host_);
  std::vector<int32_t> s(status_host_.shape()[0]);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<int32_t>(status_host_.get_linear(static_cast<int64_t>(i)));
  return s;
}

void DeviceMirror::step(const StepArgs& host) {
  step(host, [](const StepArgs& dev, cudaStream_t stream, DLTensor* status) { cuda::replayssm_decode(dev, stream, status); });
}

void DeviceMirror::step(const StepArgs& host, const Launch& launch) {
  StepArgs dev;
  DLTensor* status = nullptr;
  {
    const PhaseScope uploading(Phase::Upload);
    dev = upload(host);
    poison_out(host);
    status = status_tensor(host.mixed_qkv->shape[0]);
    check_cuda(cudaMemset(status->data, 0xFF, static_cast<std::size_t>(host.mixed_qkv->shape[0]) * 4), "status poison");
    check_cuda(cudaDeviceSynchronize(), "uploads");
  }
  launch(dev, stream_, status);
  check_cuda(cudaStreamSynchronize(stream_), "kernel execution");
  timed(Phase::Download, [&] { download_written(host); });
}

bool DeviceMirror::guards_intact() const {
  for (const auto& [key, t] : tensors_)
    if (!t->guards_intact()) return false;
  return !status_ || status_->guards_intact();
}

}  // namespace kda::engine
