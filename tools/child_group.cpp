#include "tools/child_group.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <stdexcept>

namespace kda::cli {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr std::size_t kSlots = 4096;  // children alive at once (jobs)

// The live children's process groups, for the signal handler (lock-free: it may run anywhere).
std::array<std::atomic<pid_t>, kSlots> live{};
std::array<struct sigaction, std::size(kSignals)> previous{};
std::array<bool, std::size(kSignals)> handled{};

void kill_all_groups() {
  for (auto& slot : live)
    if (const pid_t pid = slot.load(); pid > 0) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);  // should it not have reached its own group yet
    }
}

void on_signal(int sig) {
  kill_all_groups();
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == sig) sigaction(sig, &previous[i], nullptr);
  raise(sig);  // the parent ends (or does what it did before) as the signal says
}

void remember(pid_t pid) {
  for (auto& slot : live) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  throw std::runtime_error("check --isolate: more children at once than it can track");
}

void forget(pid_t pid) {
  for (auto& slot : live) {
    pid_t mine = pid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

sigset_t the_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kSignals) sigaddset(&s, sig);
  return s;
}

// The child's dispositions and mask as the parent had them before ChildGroups.
void restore_in_child(const sigset_t& old_mask) {
  for (auto& slot : live) slot.store(0);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (handled[i]) sigaction(kSignals[i], &previous[i], nullptr);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
}

}  // namespace

ChildGroups::ChildGroups() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction now{};
    sigaction(kSignals[i], nullptr, &now);
    if (now.sa_handler == SIG_IGN) continue;  // ignored (nohup): leave it so
    struct sigaction a{};
    a.sa_handler = on_signal;
    sigemptyset(&a.sa_mask);
    handled[i] = sigaction(kSignals[i], &a, &previous[i]) == 0;
  }
}

ChildGroups::~ChildGroups() {
  for (Child& c : children_) kill(-c.pid, SIGKILL), kill(c.pid, SIGKILL);
  while (!children_.empty()) collect(children_.size() - 1);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (handled[i]) sigaction(kSignals[i], &previous[i], nullptr), handled[i] = false;
}

std::size_t ChildGroups::spawn(const std::function<void(int)>& body) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  // The signals wait until the child is registered: a signal between fork and remember()
  // would leave it running.
  const sigset_t signals = the_signals();
  sigset_t old_mask;
  sigprocmask(SIG_BLOCK, &signals, &old_mask);
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    // Outside the parent's group, a child would outlive a parent killed by SIGKILL.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(3);
    restore_in_child(old_mask);
    ::close(fds[0]);
    body(fds[1]);
    _exit(3);  // body must not return
  }
  const int fork_errno = errno;
  if (pid > 0) {
    setpgid(pid, pid);  // either side may set it first; the other's call then does nothing
    try {
      remember(pid);
    } catch (...) {
      sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      ::close(fds[0]), ::close(fds[1]);
      throw;
    }
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw std::runtime_error(std::string("fork: ") + strerror(fork_errno));
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  children_.push_back({pid, fds[0], false, {}});
  return children_.size() - 1;
}

namespace {
// A report is far smaller (a case's detail is kept to 64 KiB); past this the data is dropped
// and the report left incomplete, so that a writer that does not stop costs no memory.
constexpr std::size_t kMaxData = std::size_t{64} << 20;

// Appends what the pipe holds now, up to 16 pipe buffers (one call ends even while a writer
// goes on); marks end of file.
void drain(ChildGroups::Child& c) {
  char buffer[65536];
  for (int reads = 0; !c.at_eof && reads < 16; ++reads) {
    const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n > 0) {
      if (c.data.size() < kMaxData) c.data.append(buffer, static_cast<std::size_t>(n));
      else c.data.back() = '\0';  // no end marker: incomplete
    } else if (n == 0) {
      c.at_eof = true;
    } else if (errno != EINTR) {
      return;  // EAGAIN: nothing more now
    }
  }
}
}  // namespace

void ChildGroups::poll_output(int timeout_ms) {
  std::vector<pollfd> polled;
  for (const Child& c : children_) polled.push_back({c.at_eof ? -1 : c.fd, POLLIN, 0});
  if (::poll(polled.data(), polled.size(), timeout_ms) <= 0) return;
  for (std::size_t k = 0; k < children_.size(); ++k)
    if (polled[k].revents != 0) drain(children_[k]);
}

bool ChildGroups::has_ended(std::size_t k) const {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(children_[k].pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return info.si_pid == children_[k].pid;
}

void ChildGroups::kill_group(std::size_t k) const {
  kill(-children_[k].pid, SIGKILL);
  kill(children_[k].pid, SIGKILL);
}

std::pair<std::string, int> ChildGroups::collect(std::size_t k) {
  Child c = std::move(children_[k]);
  children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(k));
  // The group goes while the unreaped child still holds its id (no other process can have it);
  // what the child wrote stays in the pipe.
  kill(-c.pid, SIGKILL);
  drain(c);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  forget(c.pid);
  ::close(c.fd);
  return {std::move(c.data), status};
}

}  // namespace kda::cli
