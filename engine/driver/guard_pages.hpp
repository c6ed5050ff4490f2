// A host buffer for one lent tensor (engine/driver/host_guards.hpp), placed so that no access outside
// it goes unseen however far it reaches within the tensor's own size:
//
//   [ guard pages ][ pattern ][ tensor ][ pattern, to the page's end ][ guard pages ]
//
// The pattern zones (at least kPatternBytes each) catch a near overrun: HostGuards compares
// them after the step and fails the case naming the tensor, and the run goes on. The guard
// pages (PROT_NONE, max(64 KiB, the tensor's size) on each side: address space only, no
// memory) catch a far one as it happens: the access faults, and the fatal-signal report
// (engine/driver/fatal_signal.hpp) names the tensor and how far from it the access was. A fault
// cannot be recovered from in the process (the backend stopped mid-step, holding what it
// held), so it ends the process as any crash does; under `check --isolate` it fails the case.
#pragma once
#include <cstddef>
#include <span>

namespace kda::engine {

class GuardedBuffer {
 public:
  static constexpr std::size_t kPatternBytes = 4096;

  GuardedBuffer() = default;
  // A buffer of `bytes` bytes for the tensor `name` (a string that outlives the buffer); the
  // pattern zones are left for the caller to fill. std::bad_alloc when it cannot be mapped.
  GuardedBuffer(std::size_t bytes, const char* name);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer&& other) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  bool empty() const { return base_ == nullptr; }
  std::size_t size() const { return bytes_; }
  std::byte* data() const { return data_; }  // page-aligned
  std::span<std::byte> before() const { return {data_ - kPatternBytes, kPatternBytes}; }
  std::span<std::byte> after() const { return {data_ + bytes_, after_}; }

 private:
  void release();
  std::byte* base_ = nullptr;  // the mapping
  std::size_t total_ = 0, bytes_ = 0, after_ = 0;
  std::byte* data_ = nullptr;
  int slot_ = -1;  // in the table the fault report reads
};

// For the fatal-signal report (async-signal-safe): when addr lies in the guard pages of a live
// GuardedBuffer, writes into out a line naming its tensor and where the access was relative to
// it, and returns the line's length; 0 otherwise.
std::size_t explain_guard_fault(const void* addr, char* out, std::size_t capacity);

}  // namespace kda::engine
