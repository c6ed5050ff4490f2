#include "engine/backends/device_mirror.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"
#include "engine/reports/phase_times.hpp"
#include "kernels/replayssm_decode.hpp"

namespace kda::engine {
namespace {

constexpr std::size_t kGuard = cuda::DeviceTensor::kGuardBytes;
// Buffers kept for reuse: two cases' worth of arguments.
constexpr std::size_t kPoolBuffers = 32;
// Staging offsets stay 256-byte aligned (fast copies).
constexpr std::size_t align_up(std::size_t n) { return (n + 255) & ~std::size_t{255}; }

// Room a new buffer gets: the next power of two from 64 KiB up to 256 MiB (so that later
// cases of a similar size reuse it), then whole 64 MiB steps.
std::size_t capacity_for(std::size_t bytes) {
  constexpr std::size_t kMin = std::size_t{64} << 10, kPow2Until = std::size_t{256} << 20, kStep = std::size_t{64} << 20;
  if (bytes > kPow2Until) return (bytes + kStep - 1) / kStep * kStep;
  std::size_t c = kMin;
  while (c < bytes) c *= 2;
  return c;
}

bool same_layout(const DLTensor& dev, const DLTensor& host) {
  return dev.dtype.code == host.dtype.code && dev.dtype.bits == host.dtype.bits && dev.dtype.lanes == host.dtype.lanes &&
         shape_of(dev) == shape_of(host) && strides_of(dev) == strides_of(host);
}

std::byte* host_bytes(const DLTensor& t) { return static_cast<std::byte*>(t.data) + t.byte_offset; }

const void* key_of(const DLTensor& host) { return static_cast<const char*>(host.data) + host.byte_offset; }

// The tensors of a step, in argument order (absent ones skipped).
std::vector<const DLTensor*> tensors_of(const StepArgs& h) {
  std::vector<const DLTensor*> v;
  for (const TensorField& f : kStepTensors)
    if (const DLTensor* t = f.get(h)) v.push_back(t);
  return v;
}

}  // namespace

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void CopyBatch::add(void* to, const void* from, std::size_t bytes) {
  to_.push_back(to);
  from_.push_back(from);
  bytes_.push_back(bytes);
}

void CopyBatch::queue(cudaStream_t stream, const char* what) {
  if (to_.empty()) return;
  if (batched_) {
    cudaMemcpyAttributes in_order{};
    in_order.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    std::size_t first = 0;
    if (cudaMemcpyBatchAsync(to_.data(), from_.data(), bytes_.data(), to_.size(), &in_order, &first, 1, stream) !=
        cudaSuccess) {
      (void)cudaGetLastError();  // a runtime or driver without batches: one call per copy from now on
      batched_ = false;
    }
  }
  if (!batched_)
    for (std::size_t i = 0; i < to_.size(); ++i)
      check_cuda(cudaMemcpyAsync(to_[i], from_[i], bytes_[i], cudaMemcpyDefault, stream), what);
  to_.clear();
  from_.clear();
  bytes_.clear();
}

// A blocking stream: a plugin that launches on the legacy default stream still runs after
// the queued uploads and before the queued downloads.
DeviceMirror::DeviceMirror() { check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate"); }

DeviceMirror::~DeviceMirror() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  if (staging_ != nullptr) cudaFreeHost(staging_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void DeviceMirror::synchronize(const char* what) {
  check_cuda(cudaStreamSynchronize(stream_), what);
  staging_busy_ = false;
}

std::byte* DeviceMirror::staging(std::size_t bytes) {
  if (staging_busy_) synchronize("staging reuse");
  if (bytes > staging_bytes_) {
    const std::size_t want = std::max(bytes, 2 * staging_bytes_);
    if (staging_ != nullptr) check_cuda(cudaFreeHost(staging_), "cudaFreeHost");
    staging_ = nullptr;
    staging_bytes_ = 0;
    void* p = nullptr;
    const PhaseScope allocating(Phase::Allocate);
    check_cuda(cudaMallocHost(&p, want), "cudaMallocHost (staging)");
    staging_ = static_cast<std::byte*>(p);
    staging_bytes_ = want;
  }
  return staging_;
}

cuda::DeviceTensor& DeviceMirror::bind(const DLTensor& host, bool& fresh) {
  fresh = false;
  auto& slot = tensors_[key_of(host)];
  if (slot && same_layout(slot->dl(), host)) return *slot;
  fresh = true;
  step_results_ = false;
  // A new host tensor (or one at a recycled address): its buffer, if it fits, else the
  // smallest of the pool that fits, else a new one.
  if (slot && slot->fit(host)) return *slot;
  if (slot) pool_.push_back(std::move(slot));
  const PhaseScope allocating(Phase::Allocate);
  const std::size_t bytes = cuda::DeviceTensor::storage_bytes_for(host);
  auto best = pool_.end();
  for (auto it = pool_.begin(); it != pool_.end(); ++it)
    if ((*it)->capacity() >= bytes && (best == pool_.end() || (*it)->capacity() < (*best)->capacity())) best = it;
  if (best != pool_.end()) {
    slot = std::move(*best);
    pool_.erase(best);
    slot->fit(host);
  } else {
    slot = std::make_unique<cuda::DeviceTensor>(host, capacity_for(bytes));
  }
  return *slot;
}

std::size_t DeviceMirror::bind_all(const StepArgs& h) {
  std::vector<const void*> keys;
  std::size_t bytes = 0;
  for (const DLTensor* t : tensors_of(h)) {
    bool fresh = false;
    bytes += align_up(bind(*t, fresh).storage_size());
    keys.push_back(key_of(*t));
  }
  release_others(keys);
  return bytes;
}

void DeviceMirror::release_others(const std::vector<const void*>& in_use) {
  for (auto it = tensors_.begin(); it != tensors_.end();) {
    if (std::find(in_use.begin(), in_use.end(), it->first) != in_use.end()) {
      ++it;
      continue;
    }
    if (it->second) pool_.push_back(std::move(it->second));
    it = tensors_.erase(it);
  }
  if (pool_.size() > kPoolBuffers) {
    synchronize("pool trim");  // a queued copy may still use a buffer cudaFree would release
    pool_.erase(pool_.begin(), pool_.begin() + static_cast<std::ptrdiff_t>(pool_.size() - kPoolBuffers));
  }
}

cuda::DeviceTensor& DeviceMirror::device_of(const DLTensor& host) {
  bool fresh = false;
  cuda::DeviceTensor& dev = bind(host, fresh);
  if (fresh) {
    synchronize("device_of");
    dev.upload(host);
  }
  return dev;
}

StepArgs DeviceMirror::upload(const StepArgs& h) {
  const PhaseScope uploading(Phase::Upload);
  step_results_ = false;
  const std::size_t bytes = bind_all(h);
  return queue_upload(h, staging(bytes));
}

StepArgs DeviceMirror::queue_upload(const StepArgs& h, std::byte* stage) {
  std::size_t at = 0;
  for (const DLTensor* t : tensors_of(h)) {
    cuda::DeviceTensor& dev = *tensors_.at(key_of(*t));
    const std::size_t n = dev.storage_size();
    std::memcpy(stage + at, host_bytes(*t), n);
    copies_.add(dev.dl().data, stage + at, n);
    at += align_up(n);
  }
  copies_.queue(stream_, "upload");
  staging_busy_ = true;
  StepArgs d = h;
  auto dev_of = [this](const DLTensor* t) -> DLTensor* { return t == nullptr ? nullptr : tensors_.at(key_of(*t))->get(); };
  for (const TensorField& f : kStepTensors) f.set(d, dev_of(f.get(h)));
  return d;
}

void DeviceMirror::poison_out(const StepArgs& h) {
  step_results_ = false;
  cuda::DeviceTensor& out = device_of(*h.out);
  check_cuda(cudaMemsetAsync(out.dl().data, 0xFF, out.storage_size(), stream_), "out poison");
}

void DeviceMirror::queue_download(const DLTensor& host, std::byte* base, std::size_t& at,
                                  std::vector<std::pair<const DLTensor*, std::size_t>>& done) {
  const cuda::DeviceTensor& dev = device_of(host);
  copies_.add(base + at, dev.dl().data, dev.storage_size());
  done.emplace_back(&host, at);
  at += align_up(dev.storage_size());
}

std::size_t DeviceMirror::queue_guard_copies(std::byte* base, std::size_t at) {
  auto queue = [&](const cuda::DeviceTensor& t) {
    const auto* storage = static_cast<const std::byte*>(t.dl().data);
    for (const std::byte* guard : {storage - kGuard, storage + t.storage_size()}) {
      copies_.add(base + at, guard, kGuard);
      at += kGuard;
    }
  };
  for (const auto& [key, t] : tensors_) queue(*t);
  if (status_) queue(*status_);
  return at;
}

bool DeviceMirror::guards_hold(const std::byte* base, std::size_t bytes) const {
  static const std::vector<std::byte> pattern(kGuard, std::byte{cuda::DeviceTensor::kGuardPattern});
  for (std::size_t at = 0; at < bytes; at += kGuard)
    if (std::memcmp(base + at, pattern.data(), kGuard) != 0) return false;
  return true;
}

void DeviceMirror::download_written(const StepArgs& h) {
  const PhaseScope downloading(Phase::Download);
  step_results_ = false;
  std::size_t bytes = 0;
  for (const DLTensor* t : {h.out, h.initial_state, h.d_cache, h.k_cache, h.g_cache})
    if (t != nullptr) bytes += align_up(device_of(*t).storage_size());
  std::byte* stage = staging(bytes);
  std::size_t at = 0;
  std::vector<std::pair<const DLTensor*, std::size_t>> done;
  for (const DLTensor* t : {h.out, h.initial_state, h.d_cache, h.k_cache, h.g_cache})
    if (t != nullptr) queue_download(*t, stage, at, done);  // an operator without rings has none
  copies_.queue(stream_, "download");
  synchronize("download");
  for (const auto& [t, offset] : done) std::memcpy(host_bytes(*t), stage + offset, device_of(*t).storage_size());
}

void DeviceMirror::download_after_refusal(const StepArgs& h) {
  synchronize("refused step");
  step_results_ = false;
  const std::vector<std::byte> out = device_of(*h.out).storage_bytes();
  const bool untouched = std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xFF}; });
  if (!untouched) device_of(*h.out).download(*h.out);
  for (DLTensor* t : {h.initial_state, h.d_cache, h.k_cache, h.g_cache})
    if (t != nullptr) device_of(*t).download(*t);  // an operator without rings has none
}

DLTensor* DeviceMirror::status_tensor(int64_t B) {
  if (!status_ || status_host_.shape()[0] != B) {
    synchronize("status tensor");
    step_results_ = false;
    status_host_ = HostTensor(ScalarType::Int32, {B});
    for (int64_t i = 0; i < B; ++i) status_host_.set_linear(i, -1);  // "never written" marker
    status_ = std::make_unique<cuda::DeviceTensor>(status_host_);
  }
  return status_->get();
}

std::vector<int32_t> DeviceMirror::row_status() {
  if (!status_) return {};
  if (step_results_) return last_status_;
  synchronize("row status");
  status_->download(status_host_);
  std::vector<int32_t> s(status_host_.shape()[0]);
  std::memcpy(s.data(), status_host_.storage().data(), s.size() * sizeof(int32_t));
  return s;
}

bool DeviceMirror::guards_intact() {
  if (step_results_) return guards_ok_;
  std::size_t bytes = 2 * kGuard * (tensors_.size() + (status_ ? 1 : 0));
  std::byte* stage = staging(bytes);
  const std::size_t end = queue_guard_copies(stage, 0);
  copies_.queue(stream_, "guard check");
  synchronize("guard check");
  const bool ok = guards_hold(stage, end);
  if (!ok) refill_all_guards();
  return ok;
}

void DeviceMirror::refill_all_guards() {
  synchronize("guard refill");
  for (const auto& [key, t] : tensors_) t->refill_guards();
  if (status_) status_->refill_guards();
}

void DeviceMirror::step(const StepArgs& host) {
  step(host, [](const StepArgs& dev, cudaStream_t stream, DLTensor* status) { cuda::replayssm_decode(dev, stream, status); });
}

void DeviceMirror::step(const StepArgs& host, const Launch& launch) {
  start(host, launch);
  finish();
}

void DeviceMirror::start(const StepArgs& host, const Launch& launch) {
  const int64_t B = host.mixed_qkv->shape[0];
  pending_ = {};
  DLTensor* status = status_tensor(B);
  StepArgs dev;
  std::byte* stage = nullptr;
  std::size_t upload_bytes = 0;
  {
    const PhaseScope uploading(Phase::Upload);
    step_results_ = false;
    upload_bytes = bind_all(host);
    // One staging area for the whole step: the uploads, then everything the verdict reads.
    std::size_t bytes = upload_bytes + align_up(static_cast<std::size_t>(B) * 4) + 2 * kGuard * (tensors_.size() + 1);
    for (const DLTensor* t : {host.out, host.initial_state, host.d_cache, host.k_cache, host.g_cache})
      if (t != nullptr) bytes += align_up(tensors_.at(key_of(*t))->storage_size());
    stage = staging(bytes);
    dev = queue_upload(host, stage);
    check_cuda(cudaMemsetAsync(dev.out->data, 0xFF, tensors_.at(key_of(*host.out))->storage_size(), stream_), "out poison");
    check_cuda(cudaMemsetAsync(status->data, 0xFF, static_cast<std::size_t>(B) * 4, stream_), "status poison");
  }
  launch(dev, stream_, status);

  // Everything the verdict reads is queued behind the launch, to come back with the one
  // synchronization of finish(): what the step may write, the row status, every guard region.
  const PhaseScope downloading(Phase::Download);
  Pending& p = pending_;
  p.B = B;
  std::size_t at = upload_bytes;
  for (const DLTensor* t : {host.out, host.initial_state, host.d_cache, host.k_cache, host.g_cache})
    if (t != nullptr) {
      const cuda::DeviceTensor& dev_t = *tensors_.at(key_of(*t));
      copies_.add(stage + at, dev_t.dl().data, dev_t.storage_size());
      p.downloads[p.count++] = {host_bytes(*t), at, dev_t.storage_size()};
      at += align_up(dev_t.storage_size());
    }
  p.status_at = at;
  copies_.add(stage + p.status_at, status->data, static_cast<std::size_t>(B) * 4);
  at += align_up(static_cast<std::size_t>(B) * 4);
  p.guards_at = at;
  p.guards_end = queue_guard_copies(stage, p.guards_at);
  copies_.queue(stream_, "download");
  p.stage = stage;
}

void DeviceMirror::finish() {
  if (pending_.stage == nullptr) throw std::logic_error("DeviceMirror::finish without a started step");
  const Pending p = pending_;
  pending_ = {};
  {
    // What is left of the kernel and its read-backs after the host's work since start().
    const PhaseScope waiting(Phase::Step);
    synchronize("kernel execution");
  }
  const PhaseScope downloading(Phase::Download);
  for (std::size_t i = 0; i < p.count; ++i) std::memcpy(p.downloads[i].host, p.stage + p.downloads[i].at, p.downloads[i].bytes);
  last_status_.resize(static_cast<std::size_t>(p.B));
  std::memcpy(last_status_.data(), p.stage + p.status_at, static_cast<std::size_t>(p.B) * 4);
  guards_ok_ = guards_hold(p.stage + p.guards_at, p.guards_end - p.guards_at);
  step_results_ = true;
  if (!guards_ok_) refill_all_guards();  // reported now; the buffers' next use starts clean
}

}  // namespace kda::engine
