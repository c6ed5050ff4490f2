#include "engine/host_guards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace kda::engine {
namespace {

constexpr std::byte kPattern{0xA5};

// Where a view's elements lie relative to its data pointer: the lowest and one past the
// highest byte any element occupies (negative strides reach below byte_offset).
struct Extent {
  int64_t begin = 0, end = 0;
};

Extent extent_of(const DLTensor& t) {
  const int64_t item = (t.dtype.bits * t.dtype.lanes + 7) / 8;
  int64_t low = 0, high = 0, stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 0) return {static_cast<int64_t>(t.byte_offset), static_cast<int64_t>(t.byte_offset)};
    const int64_t s = t.strides ? t.strides[d] : stride;
    const int64_t reach = (t.shape[d] - 1) * s;
    (reach < 0 ? low : high) += reach;
    stride *= t.shape[d];
  }
  return {static_cast<int64_t>(t.byte_offset) + low * item, static_cast<int64_t>(t.byte_offset) + (high + 1) * item};
}

// A guard region as it was filled: compared with memcmp, not byte by byte (every step checks
// two regions of every lent tensor).
const std::array<std::byte, HostGuards::kGuardBytes>& pattern_block() {
  static const auto block = [] {
    std::array<std::byte, HostGuards::kGuardBytes> b;
    b.fill(kPattern);
    return b;
  }();
  return block;
}

bool intact(const std::byte* p, std::size_t n) { return std::memcmp(p, pattern_block().data(), n) == 0; }

// The changed bytes of a guard region, nearest the tensor first: how far a write reached.
std::size_t reach_before(const std::byte* guard, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (guard[i] != kPattern) return n - i;
  return 0;
}
std::size_t reach_after(const std::byte* guard, std::size_t n) {
  for (std::size_t i = n; i > 0; --i)
    if (guard[i - 1] != kPattern) return i;
  return 0;
}

// The tensor arguments of a call by name (the damage report names them): contract/step_fields.hpp.
constexpr const auto& kFields = kStepTensors;

}  // namespace

bool lends_host_memory(const Backend& backend) { return backend.envelope().device == Device::Cpu; }

void HostGuards::step(Backend& backend, const StepArgs& args) {
  static_assert(kFields.size() == kTensors);
  damage_.clear();
  StepArgs lent = args;
  std::array<DLTensor, kTensors> views{};
  std::array<Extent, kTensors> extents{};
  for (std::size_t i = 0; i < kTensors; ++i) {
    const DLTensor* t = kFields[i].get(args);
    if (t == nullptr) continue;
    const Extent e = extents[i] = extent_of(*t);
    const auto bytes = static_cast<std::size_t>(e.end - e.begin);
    std::vector<std::byte>& buf = buffers_[i];
    if (buf.size() != bytes + 2 * kGuardBytes) {
      buf.resize(bytes + 2 * kGuardBytes);
      patterned_[i] = false;
    }
    if (!patterned_[i]) {
      std::fill(buf.begin(), buf.begin() + kGuardBytes, kPattern);
      std::fill(buf.end() - kGuardBytes, buf.end(), kPattern);
      patterned_[i] = true;
    }
    if (bytes > 0) std::memcpy(buf.data() + kGuardBytes, static_cast<const std::byte*>(t->data) + e.begin, bytes);
    views[i] = *t;
    views[i].data = buf.data() + kGuardBytes;  // the lowest element's byte, aligned as the allocator aligns
    views[i].byte_offset = static_cast<uint64_t>(static_cast<int64_t>(t->byte_offset) - e.begin);
    kFields[i].set(lent, &views[i]);
  }
  // Copies back and checks the guards whatever the step did, so that a refusal's writes are
  // seen by the caller's checks and a stray write is reported, not lost.
  const auto settle = [&] {
    for (std::size_t i = 0; i < kTensors; ++i) {
      const DLTensor* t = kFields[i].get(args);
      if (t == nullptr) continue;
      const std::vector<std::byte>& buf = buffers_[i];
      const auto bytes = static_cast<std::size_t>(extents[i].end - extents[i].begin);
      if (bytes > 0) std::memcpy(static_cast<std::byte*>(t->data) + extents[i].begin, buf.data() + kGuardBytes, bytes);
      const std::byte* after = buf.data() + kGuardBytes + bytes;
      patterned_[i] = intact(buf.data(), kGuardBytes) && intact(after, kGuardBytes);
      if (patterned_[i]) continue;
      if (!intact(buf.data(), kGuardBytes))
        damage_ += fmt::format("{}a write before the start of `{}` (up to {} bytes before its first element)",
                               damage_.empty() ? "" : "; ", kFields[i].name.data(), reach_before(buf.data(), kGuardBytes));
      if (!intact(after, kGuardBytes))
        damage_ += fmt::format("{}a write past the end of `{}` (up to {} bytes after its last element)",
                               damage_.empty() ? "" : "; ", kFields[i].name.data(), reach_after(after, kGuardBytes));
    }
  };
  try {
    backend.step(lent);
  } catch (...) {
    settle();
    throw;
  }
  settle();
}

}  // namespace kda::engine
