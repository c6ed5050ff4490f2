#include "engine/driver/host_guards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

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

// A pattern zone as it was filled: compared with memcmp a block at a time, not byte by byte
// (every step checks two zones of every lent tensor).
constexpr std::size_t kBlock = 4096;
const std::array<std::byte, kBlock>& pattern_block() {
  static const auto block = [] {
    std::array<std::byte, kBlock> b;
    b.fill(kPattern);
    return b;
  }();
  return block;
}

bool intact(std::span<const std::byte> zone) {
  for (std::size_t at = 0; at < zone.size(); at += kBlock)
    if (std::memcmp(zone.data() + at, pattern_block().data(), std::min(kBlock, zone.size() - at)) != 0) return false;
  return true;
}

void fill(std::span<std::byte> zone) { std::fill(zone.begin(), zone.end(), kPattern); }

// The changed bytes of a pattern zone, nearest the tensor first: how far a write reached.
std::size_t reach_before(std::span<const std::byte> zone) {
  for (std::size_t i = 0; i < zone.size(); ++i)
    if (zone[i] != kPattern) return zone.size() - i;
  return 0;
}
std::size_t reach_after(std::span<const std::byte> zone) {
  for (std::size_t i = zone.size(); i > 0; --i)
    if (zone[i - 1] != kPattern) return i;
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
    GuardedBuffer& buf = buffers_[i];
    if (buf.empty() || buf.size() != bytes) {
      buf = GuardedBuffer(bytes, kFields[i].name.data());
      patterned_[i] = false;
    }
    if (!patterned_[i]) {
      fill(buf.before());
      fill(buf.after());
      patterned_[i] = true;
    }
    if (bytes > 0) std::memcpy(buf.data(), static_cast<const std::byte*>(t->data) + e.begin, bytes);
    views[i] = *t;
    views[i].data = buf.data();  // the lowest element's byte, page-aligned
    views[i].byte_offset = static_cast<uint64_t>(static_cast<int64_t>(t->byte_offset) - e.begin);
    kFields[i].set(lent, &views[i]);
  }
  // Copies back and checks the guards whatever the step did, so that a refusal's writes are
  // seen by the caller's checks and a stray write is reported, not lost.
  const auto settle = [&] {
    for (std::size_t i = 0; i < kTensors; ++i) {
      const DLTensor* t = kFields[i].get(args);
      if (t == nullptr) continue;
      const GuardedBuffer& buf = buffers_[i];
      const auto bytes = static_cast<std::size_t>(extents[i].end - extents[i].begin);
      if (bytes > 0) std::memcpy(static_cast<std::byte*>(t->data) + extents[i].begin, buf.data(), bytes);
      const bool before_intact = intact(buf.before()), after_intact = intact(buf.after());
      patterned_[i] = before_intact && after_intact;
      if (!before_intact)
        damage_ += fmt::format("{}a write before the start of `{}` (up to {} bytes before its first element)",
                               damage_.empty() ? "" : "; ", kFields[i].name.data(), reach_before(buf.before()));
      if (!after_intact)
        damage_ += fmt::format("{}a write past the end of `{}` (up to {} bytes after its last element)",
                               damage_.empty() ? "" : "; ", kFields[i].name.data(), reach_after(buf.after()));
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
