#include "kernels/device_tensor.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "contract/tensor_view.hpp"

namespace kda::cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("DeviceTensor: ") + what + ": " + cudaGetErrorString(e));
}

// Bytes from the first element to the end of the last one the strides reach (1 when empty,
// like HostTensor's storage).
std::size_t envelope_bytes(const DLTensor& t) {
  const auto shape = shape_of(t);
  const auto strides = strides_of(t);
  int64_t hi = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return 1;
    hi += (shape[d] - 1) * strides[d];
  }
  return static_cast<std::size_t>(hi + 1) * ((t.dtype.bits * t.dtype.lanes + 7) / 8);
}

const std::byte* host_bytes(const DLTensor& t) { return static_cast<const std::byte*>(t.data) + t.byte_offset; }

void check_host_view(const DLTensor& t, std::size_t bytes, const char* what) {
  if (t.data == nullptr || t.device.device_type != kDLCPU)
    throw std::invalid_argument(std::string("DeviceTensor::") + what + ": needs a CPU tensor with data");
  if (envelope_bytes(t) != bytes) throw std::invalid_argument(std::string("DeviceTensor::") + what + ": storage size differs");
}

}  // namespace

DeviceTensor::DeviceTensor(const HostTensor& host) : DeviceTensor(host.dl()) {}

DeviceTensor::DeviceTensor(const DLTensor& host) : DeviceTensor(host, 0) {}

DeviceTensor::DeviceTensor(const DLTensor& host, std::size_t capacity)
    : shape_(shape_of(host)), strides_(strides_of(host)), storage_bytes_(envelope_bytes(host)) {
  if (host.data == nullptr || host.device.device_type != kDLCPU)
    throw std::invalid_argument("DeviceTensor: needs a CPU tensor with data");
  capacity_ = std::max(capacity, storage_bytes_);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  void* block = nullptr;
  check(cudaMalloc(&block, capacity_ + 2 * kGuardBytes), "cudaMalloc");
  block_ = static_cast<std::byte*>(block);
  check(cudaMemset(block_, kGuardPattern, kGuardBytes), "cudaMemset (front guard)");
  check(cudaMemset(block_ + kGuardBytes + storage_bytes_, kGuardPattern, kGuardBytes), "cudaMemset (back guard)");
  dl_ = host;
  dl_.data = block_ + kGuardBytes;
  dl_.byte_offset = 0;
  dl_.device = {kDLCUDA, device};
  dl_.shape = shape_.data();
  dl_.strides = strides_.data();
  upload(host);
}

void DeviceTensor::refill_guards() {
  check(cudaMemset(block_, kGuardPattern, kGuardBytes), "cudaMemset (front guard)");
  check(cudaMemset(block_ + kGuardBytes + storage_bytes_, kGuardPattern, kGuardBytes), "cudaMemset (back guard)");
}

std::size_t DeviceTensor::storage_bytes_for(const DLTensor& host) { return envelope_bytes(host); }

bool DeviceTensor::fit(const DLTensor& host) {
  if (host.data == nullptr || host.device.device_type != kDLCPU)
    throw std::invalid_argument("DeviceTensor::fit: needs a CPU tensor with data");
  const std::size_t bytes = envelope_bytes(host);
  if (block_ == nullptr || bytes > capacity_) return false;
  shape_ = shape_of(host);
  strides_ = strides_of(host);
  storage_bytes_ = bytes;
  refill_guards();
  const DLDevice device = dl_.device;
  dl_ = host;
  dl_.data = block_ + kGuardBytes;
  dl_.byte_offset = 0;
  dl_.device = device;
  dl_.shape = shape_.data();
  dl_.strides = strides_.data();
  return true;
}

DeviceTensor::~DeviceTensor() { release(); }

DeviceTensor::DeviceTensor(DeviceTensor&& o) noexcept { *this = std::move(o); }

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& o) noexcept {
  if (this == &o) return *this;
  release();
  shape_ = std::move(o.shape_);
  strides_ = std::move(o.strides_);
  block_ = std::exchange(o.block_, nullptr);
  storage_bytes_ = std::exchange(o.storage_bytes_, 0);
  capacity_ = std::exchange(o.capacity_, 0);
  dl_ = o.dl_;
  dl_.shape = shape_.data();
  dl_.strides = strides_.data();
  o.dl_ = DLTensor{};
  return *this;
}

void DeviceTensor::release() noexcept {
  if (block_ != nullptr) cudaFree(block_);
  block_ = nullptr;
}

void DeviceTensor::upload(const DLTensor& host) {
  check_host_view(host, storage_bytes_, "upload");
  check(cudaMemcpy(dl_.data, host_bytes(host), storage_bytes_, cudaMemcpyHostToDevice), "upload");
}

void DeviceTensor::download(DLTensor& host) const {
  check_host_view(host, storage_bytes_, "download");
  check(cudaMemcpy(const_cast<std::byte*>(host_bytes(host)), dl_.data, storage_bytes_, cudaMemcpyDeviceToHost),
        "download");
}

std::vector<std::byte> DeviceTensor::storage_bytes() const {
  std::vector<std::byte> bytes(storage_bytes_);
  check(cudaMemcpy(bytes.data(), dl_.data, storage_bytes_, cudaMemcpyDeviceToHost), "storage_bytes");
  return bytes;
}

void DeviceTensor::fill_bytes(unsigned char value) {
  check(cudaMemset(dl_.data, value, storage_bytes_), "fill_bytes");
}

bool DeviceTensor::guards_intact() const {
  std::vector<unsigned char> guard(kGuardBytes);
  for (const std::byte* at : {block_, block_ + kGuardBytes + storage_bytes_}) {
    check(cudaMemcpy(guard.data(), at, kGuardBytes, cudaMemcpyDeviceToHost), "guard check");
    for (unsigned char b : guard)
      if (b != kGuardPattern) return false;
  }
  return true;
}

}  // namespace kda::cuda
