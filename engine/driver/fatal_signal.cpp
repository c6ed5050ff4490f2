#include "engine/driver/fatal_signal.hpp"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "engine/driver/guard_pages.hpp"

namespace kda::engine {
namespace {

constexpr int kSlots = 256;         // cases in flight at once (threads)
constexpr std::size_t kLine = 4096;  // bytes of a replay line kept
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> live{false};  // the line is complete and its case running
  char line[kLine];
  std::size_t length = 0;
};
std::array<Slot, kSlots> slots;
std::array<struct sigaction, std::size(kSignals)> previous_actions;
thread_local int current_slot = -1;  // the innermost case of this thread

std::atomic<int> fault_notes{-1};  // send_fault_notes_to's descriptor

void put(const char* s, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w, n -= static_cast<std::size_t>(w);
  }
}
void put(const char* s) { put(s, strlen(s)); }

void report_slot(const Slot& s) {
  put("  replay: ");
  put(s.line, s.length);
  put("\n");
}

void on_fatal_signal(int sig, siginfo_t* info, void*) {
  put("\nkda-harness: fatal signal ");
  put(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  put(" (");
  put(sigdescr_np(sig) ? sigdescr_np(sig) : "?");
  put(") while running a case\n");
  if ((sig == SIGSEGV || sig == SIGBUS) && info != nullptr) {
    char why[512];
    if (const std::size_t n = explain_guard_fault(info->si_addr, why, sizeof why); n > 0) {
      put("kda-harness: ");
      put(why, n);
      put("\n");
      if (const int fd = fault_notes.load(); fd >= 0) {
        const auto note = [fd](const char* s, std::size_t k) { (void)!::write(fd, s, k); };
        note("fault: ", 7), note(why, n), note("\n", 1);
      }
    }
  }
  const int mine = current_slot;
  const bool from_here = info == nullptr || info->si_code > 0 || info->si_pid == getpid();
  if (mine >= 0 && slots[mine].live.load()) {
    report_slot(slots[mine]);
  } else if (!from_here || mine < 0) {
    for (const Slot& s : slots)
      if (s.live.load()) report_slot(s);
  }
  // The previous handler (or the default) gets the signal once this handler returns.
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == sig) sigaction(sig, &previous_actions[i], nullptr);
  raise(sig);
}

std::atomic<bool> fail_exits_in_cases{true};

void on_exit_in_case() {
  if (!fail_exits_in_cases.load()) return;
  if (std::none_of(slots.begin(), slots.end(), [](const Slot& s) { return s.live.load(); })) return;
  put("\nkda-harness: exit() was called while running a case (by the backend): the case fails\n");
  for (const Slot& s : slots)
    if (s.live.load()) report_slot(s);
  _exit(1);
}

}  // namespace

void send_fault_notes_to(int fd) { fault_notes.store(fd); }

void keep_exit_status_of_cases() { fail_exits_in_cases.store(false); }

void install_fatal_signal_report() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction a{};
    a.sa_sigaction = on_fatal_signal;
    a.sa_flags = SA_SIGINFO;
    sigemptyset(&a.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &a, &previous_actions[i]);
    std::atexit(on_exit_in_case);
    std::at_quick_exit(on_exit_in_case);
  });
}

CaseInFlight::CaseInFlight(std::string_view replay) : slot_(-1), previous_(current_slot) {
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (slots[i].used.compare_exchange_strong(expected, true)) {
      slot_ = i;
      break;
    }
  }
  if (slot_ < 0) return;  // more threads than slots: this case goes unnamed
  Slot& s = slots[slot_];
  s.length = std::min(replay.size(), kLine);
  std::copy_n(replay.data(), s.length, s.line);
  s.live.store(true);
  current_slot = slot_;
}

CaseInFlight::~CaseInFlight() {
  current_slot = previous_;
  if (slot_ < 0) return;
  slots[slot_].live.store(false);
  slots[slot_].used.store(false);
}

}  // namespace kda::engine
