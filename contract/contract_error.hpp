// The one error type of the contract: a catalog id plus the exact message.
#pragma once
#include <stdexcept>
#include <string>

namespace kda {

class ContractError : public std::runtime_error {
 public:
  ContractError(std::string id, const std::string& message)
      : std::runtime_error(message), id_(std::move(id)) {}
  const std::string& id() const { return id_; }

 private:
  std::string id_;
};

// Catalog ids. The documented checks use contract.md's labels ("W1", "V1".."V22",
// "R1".."R10"; P0 raises "V1", R4's short-d_cache case raises "R5"); the harness extensions:
namespace error_id {
inline constexpr const char* kViewA = "X-VIEW-A";             // W3: a.view(batch, -1) impossible
inline constexpr const char* kFloatDtype = "X-DTYPE-FLOAT";   // a floating tensor not f32/bf16/f16
inline constexpr const char* kIndexDtype = "X-DTYPE-INDEX";   // ssm_state_indices not int32/int64
inline constexpr const char* kRingSlots = "X-RING-SLOTS";     // a ring's shape[0] != initial_state's
inline constexpr const char* kStrides = "X-STRIDES";          // negative strides, or a written tensor whose elements overlap
inline constexpr const char* kExtents = "X-EXTENTS";          // a tensor whose numel or bytes overflow int64
inline constexpr const char* kBackendCpu = "X-BACKEND-CPU";   // reference given non-CPU tensors
inline constexpr const char* kBackendCuda = "X-BACKEND-CUDA"; // kernel given non-CUDA tensors
inline constexpr const char* kSlotIndex = "X-SLOT-INDEX";     // runtime: slot index >= slots
inline constexpr const char* kWritePos = "X-WRITE-POS";       // runtime: write_pos outside [0, L-1]
inline constexpr const char* kCacheBase = "X-CACHE-BASE";     // runtime: circular cache_base outside [0, L-1]
inline constexpr const char* kDuplicateSlot = "X-DUP-SLOT";   // runtime: two rows, one slot
}  // namespace error_id

}  // namespace kda
