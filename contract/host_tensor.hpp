// The one owner of tensor memory on the host. A HostTensor is a DLTensor plus the arrays
// it points to: shape, strides and (unless metadata-only) a byte buffer big enough for
// every element the strides can reach. Everything else in the harness borrows DLTensor
// views of it.
#pragma once
#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "contract/scalar_type.hpp"

namespace kda {

class HostTensor {
 public:
  HostTensor() = default;
  // Owned CPU storage; strides empty = compact row-major (PyTorch's: a zero-size dim counts as
  // 1 in the strides of the dims before it). Bytes are zero-filled.
  HostTensor(ScalarType type, std::vector<int64_t> shape, std::vector<int64_t> strides = {});
  // Description only (no data pointer): any dtype, any device; used by validate() tests,
  // the metadata CLI and the contract fuzzer. strides_null keeps DLTensor::strides null.
  // Owned compact CPU storage taken over from `compact_bytes`, its elements in row-major order
  // (numel * size bytes, as a file holds them): no second buffer is allocated and filled.
  // std::invalid_argument when the size does not match.
  static HostTensor adopt_compact(ScalarType type, std::vector<int64_t> shape, std::vector<std::byte> compact_bytes);
  static HostTensor metadata(DLDataType dtype, std::vector<int64_t> shape,
                             std::vector<int64_t> strides, DLDevice device, bool strides_null = false);

  HostTensor(const HostTensor& other);
  HostTensor& operator=(const HostTensor& other);
  HostTensor(HostTensor&& other) noexcept;
  HostTensor& operator=(HostTensor&& other) noexcept;

  DLTensor& dl() { return dl_; }
  const DLTensor& dl() const { return dl_; }
  bool has_data() const { return dl_.data != nullptr; }
  ScalarType type() const;  // only for tensors of the five known types
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  std::vector<std::byte>& storage() { return storage_; }
  const std::vector<std::byte>& storage() const { return storage_; }

  // Element access by multi-index, converted through double (bf16/f16 rounded to nearest
  // even on store).
  double get(const std::vector<int64_t>& index) const;
  void set(const std::vector<int64_t>& index, double value);
  // Logical row-major index -> value (walks the strides).
  double get_linear(int64_t i) const;
  void set_linear(int64_t i, double value);
  int64_t numel() const;

  // Same dtype, shape and strides (and so the same storage size).
  bool same_layout(const HostTensor& other) const;
  // Copies other's storage bytes into this tensor's storage, which stays where it is (views
  // and device mirrors keyed by its address stay valid); std::invalid_argument unless
  // same_layout(other).
  void copy_bytes_from(const HostTensor& other);

 private:
  void relink();
  std::vector<int64_t> shape_, strides_;
  std::vector<std::byte> storage_;
  DLTensor dl_{};
  bool strides_null_ = false;
};

// Raw element load/store at a byte address, by dtype (float values go through double).
double load_element(const std::byte* p, ScalarType t);
void store_element(std::byte* p, ScalarType t, double v);

}  // namespace kda
