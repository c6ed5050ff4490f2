// DeviceTensor: the one owner of GPU memory in the harness. It mirrors a HostTensor (same
// shape, strides, dtype, and the same strided-envelope storage size) in one cudaMalloc'd
// block with guard regions before and after the storage, filled with a known byte pattern,
// so a test can prove that a kernel wrote nothing outside the tensor.
//
// All copies are synchronous (cudaMemcpy): this type is for tests and tools, not for the
// timed path. Errors throw std::runtime_error with the CUDA error string.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "contract/host_tensor.hpp"

namespace kda::cuda {

class DeviceTensor {
 public:
  static constexpr std::size_t kGuardBytes = 4096;          // each side; keeps storage 256-B aligned
  static constexpr unsigned char kGuardPattern = 0xA5;

  DeviceTensor() = default;
  // Allocates on the current device, fills the guards, uploads host's storage bytes.
  explicit DeviceTensor(const HostTensor& host);
  // The same from any CPU DLTensor view with data: the storage is every byte from
  // data + byte_offset up to the last element its strides reach (HostTensor's envelope).
  explicit DeviceTensor(const DLTensor& host_view);
  // The same with room for `capacity` storage bytes (at least host_view's), so that fit() can
  // later lay a larger tensor into it.
  DeviceTensor(const DLTensor& host_view, std::size_t capacity);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor& operator=(DeviceTensor&& other) noexcept;

  // A DLTensor view on kDLCUDA (device = the current device at construction).
  DLTensor& dl() { return dl_; }
  const DLTensor& dl() const { return dl_; }
  DLTensor* get() { return &dl_; }

  // Copies the whole storage envelope (every byte the strides span, gaps included) from /
  // to a HostTensor of the same dtype and storage size (checked).
  void upload(const HostTensor& host) { upload(host.dl()); }
  void download(HostTensor& host) const { download(host.dl()); }
  void upload(const DLTensor& host_view);
  void download(DLTensor& host_view) const;
  // The raw storage bytes (for untouched-byte checks of gaps between strided elements).
  std::vector<std::byte> storage_bytes() const;
  // Fills the storage bytes with one byte value (e.g. 0xFF: NaN poison for f32/bf16/f16).
  void fill_bytes(unsigned char value);
  // True when both guard regions still hold kGuardPattern in every byte.
  bool guards_intact() const;
  std::size_t storage_size() const { return storage_bytes_; }
  std::size_t capacity() const { return capacity_; }
  // The storage bytes a device copy of host_view needs (its strided envelope).
  static std::size_t storage_bytes_for(const DLTensor& host_view);
  // Lays the block out for host_view's shape, strides and dtype when its storage fits the
  // capacity (the back guard moves to the new storage's end; both guards are filled again;
  // the storage bytes are left as they are); false, changing nothing, when it does not fit.
  bool fit(const DLTensor& host_view);
  // Fills both guard regions with the pattern again (a reused buffer starts clean).
  void refill_guards();

 private:
  void release() noexcept;
  std::vector<int64_t> shape_, strides_;
  std::byte* block_ = nullptr;  // guard | storage | guard
  std::size_t storage_bytes_ = 0;
  std::size_t capacity_ = 0;  // storage bytes the block has room for
  DLTensor dl_{};
};

}  // namespace kda::cuda
