#include "kernels/device_tensor.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace kda::cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("DeviceTensor: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

DeviceTensor::DeviceTensor(const HostTensor& host)
    : shape_(host.shape()), strides_(host.strides()), storage_bytes_(host.storage().size()) {
  if (!host.has_data()) throw std::invalid_argument("DeviceTensor: the host tensor has no data");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  void* block = nullptr;
  check(cudaMalloc(&block, storage_bytes_ + 2 * kGuardBytes), "cudaMalloc");
  block_ = static_cast<std::byte*>(block);
  check(cudaMemset(block_, kGuardPattern, kGuardBytes), "cudaMemset (front guard)");
  check(cudaMemset(block_ + kGuardBytes + storage_bytes_, kGuardPattern, kGuardBytes), "cudaMemset (back guard)");
  dl_ = host.dl();
  dl_.data = block_ + kGuardBytes;
  dl_.byte_offset = 0;
  dl_.device = {kDLCUDA, device};
  dl_.shape = shape_.data();
  dl_.strides = strides_.data();
  upload(host);
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

void DeviceTensor::upload(const HostTensor& host) {
  if (host.storage().size() != storage_bytes_) throw std::invalid_argument("DeviceTensor::upload: storage size differs");
  check(cudaMemcpy(dl_.data, host.storage().data(), storage_bytes_, cudaMemcpyHostToDevice), "upload");
}

void DeviceTensor::download(HostTensor& host) const {
  if (host.storage().size() != storage_bytes_) throw std::invalid_argument("DeviceTensor::download: storage size differs");
  check(cudaMemcpy(host.storage().data(), dl_.data, storage_bytes_, cudaMemcpyDeviceToHost), "download");
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
