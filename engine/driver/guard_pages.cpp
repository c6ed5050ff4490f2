#include "engine/driver/guard_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

namespace kda::engine {
namespace {

constexpr std::size_t kMinGuard = std::size_t{64} << 10;

std::size_t page() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return p;
}
std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// The live buffers' guard pages, for the fault report (which may run on any thread, at any
// moment: plain atomics, no lock). lo == 0: a free entry.
struct Zone {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> lo{0};
  uintptr_t hi = 0, begin = 0, end = 0;  // the whole mapping; the tensor's bytes
  const char* name = "";
};
std::array<Zone, 4096> zones;

int remember(uintptr_t lo, uintptr_t hi, uintptr_t begin, uintptr_t end, const char* name) {
  for (std::size_t i = 0; i < zones.size(); ++i) {
    bool free = false;
    if (!zones[i].used.compare_exchange_strong(free, true)) continue;
    zones[i].hi = hi, zones[i].begin = begin, zones[i].end = end, zones[i].name = name;
    zones[i].lo.store(lo, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;  // more buffers than entries: a fault in this one is reported without its name
}

void forget(int slot) {
  if (slot < 0) return;
  zones[static_cast<std::size_t>(slot)].lo.store(0, std::memory_order_release);
  zones[static_cast<std::size_t>(slot)].used.store(false);
}

// Appends to a fixed buffer without allocating (the fault report runs in a signal handler).
struct Line {
  char* out;
  std::size_t capacity, length = 0;
  void add(const char* s) {
    for (; *s != '\0' && length + 1 < capacity; ++s) out[length++] = *s;
  }
  void add(uintptr_t n) {
    char digits[24];
    int k = 0;
    do digits[k++] = static_cast<char>('0' + n % 10), n /= 10;
    while (n > 0);
    while (k > 0 && length + 1 < capacity) out[length++] = digits[--k];
  }
};

}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes, const char* name) : bytes_(bytes) {
  const std::size_t guard = std::max(kMinGuard, round_up(bytes, page()));
  const std::size_t inner = round_up(kPatternBytes + bytes + kPatternBytes, page());
  total_ = guard + inner + guard;
  void* p = mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<std::byte*>(p);
  if (mprotect(base_ + guard, inner, PROT_READ | PROT_WRITE) != 0) {
    munmap(base_, total_);
    base_ = nullptr;
    throw std::bad_alloc();
  }
  data_ = base_ + guard + kPatternBytes;
  after_ = inner - kPatternBytes - bytes;
  const auto at = [](const std::byte* q) { return reinterpret_cast<uintptr_t>(q); };
  slot_ = remember(at(base_), at(base_ + total_), at(data_), at(data_ + bytes), name);
}

void GuardedBuffer::release() {
  if (base_ == nullptr) return;
  forget(slot_);
  munmap(base_, total_);
  base_ = data_ = nullptr;
  slot_ = -1;
}

GuardedBuffer::~GuardedBuffer() { release(); }

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept
    : base_(o.base_), total_(o.total_), bytes_(o.bytes_), after_(o.after_), data_(o.data_), slot_(o.slot_) {
  o.base_ = o.data_ = nullptr;
  o.slot_ = -1;
}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    base_ = o.base_, total_ = o.total_, bytes_ = o.bytes_, after_ = o.after_, data_ = o.data_, slot_ = o.slot_;
    o.base_ = o.data_ = nullptr;
    o.slot_ = -1;
  }
  return *this;
}

std::size_t explain_guard_fault(const void* addr, char* out, std::size_t capacity) {
  if (capacity == 0) return 0;
  const auto a = reinterpret_cast<uintptr_t>(addr);
  for (const Zone& z : zones) {
    const uintptr_t lo = z.lo.load(std::memory_order_acquire);
    if (lo == 0 || a < lo || a >= z.hi || (a >= z.begin && a < z.end)) continue;
    Line line{out, capacity};
    line.add("an access ");
    if (a >= z.end) {
      line.add(a - z.end + 1);
      line.add(" bytes past the end of `");
    } else {
      line.add(z.begin - a);
      line.add(" bytes before the start of `");
    }
    line.add(z.name);
    line.add("` hit a guard page: the backend reads or writes outside the tensor");
    out[line.length] = '\0';
    return line.length;
  }
  return 0;
}

}  // namespace kda::engine
