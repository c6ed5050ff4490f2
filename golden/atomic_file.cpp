#include "golden/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace kda::golden {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& target, const std::string& what, int err) {
  throw AtomicWriteError("cannot write " + target.string() + ": " + what + (err ? std::string(": ") + std::strerror(err) : ""));
}

fs::path temporary_for(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return temporary_beside(target, ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

// The descriptor of this process that path names (through /dev/stdout, /dev/fd/N,
// /proc/self/fd/N and symlinks to them), or -1. Each symlink of the chain is followed by hand:
// the kernel's own resolution of /proc/self/fd/N lands on the file the descriptor is open on.
int named_descriptor(const fs::path& path) {
  std::error_code ec;
  const fs::path own = fs::canonical("/proc/self/fd", ec), own_thread = fs::canonical("/proc/thread-self/fd", ec);
  fs::path p = path;
  for (int hop = 0; hop < 40; ++hop) {  // the kernel's limit on symlinks in a path
    const fs::path dir = fs::canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
    if (!ec && !own.empty() && (dir == own || dir == own_thread)) {
      const std::string name = p.filename().string();
      char* end = nullptr;
      const long fd = std::strtol(name.c_str(), &end, 10);
      if (name.empty() || *end != '\0' || fd < 0 || fd > INT_MAX || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
      return static_cast<int>(fd);
    }
    if (!fs::is_symlink(p, ec)) return -1;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return -1;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return -1;
}

// Refuses a regular file that may not be replaced (atomic_file.hpp).
void check_replaceable(const fs::path& target, const struct stat& st) {
  if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0)
    fail(target, "it is read-only, not replaced", (st.st_mode & 0222) == 0 ? 0 : errno);
  if (st.st_nlink > 1)
    fail(target, "it has " + std::to_string(st.st_nlink) + " hard links, which replacing it would break", 0);
}

// Writes every byte to fd; false with errno set on a failed write.
bool write_all(int fd, std::span<const std::byte> bytes) {
  const auto* p = reinterpret_cast<const char*>(bytes.data());
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::span<const std::byte> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

fs::path temporary_beside(const fs::path& target, std::string_view suffix) {
  std::string name = target.filename().string();
  name.resize(std::min(name.size(), NAME_MAX - std::min<std::size_t>(suffix.size(), NAME_MAX)));
  return target.parent_path() / (name + std::string(suffix));
}

OutputTarget resolve_output_target(const fs::path& path) {
  if (const int fd = named_descriptor(path); fd >= 0) return {path, true, fd};
  struct stat link_st {};
  if (::lstat(path.c_str(), &link_st) != 0) {
    if (errno == ENOENT) return {path, false};  // a new file
    fail(path, "cannot inspect it", errno);
  }
  struct stat st = link_st;
  if (S_ISLNK(link_st.st_mode) && ::stat(path.c_str(), &st) != 0)
    fail(path, "it is a symlink to nothing (the link is not replaced)", errno);
  if (S_ISDIR(st.st_mode)) fail(path, "it is a folder", 0);
  if (!S_ISREG(st.st_mode)) return {path, true};
  if (!S_ISLNK(link_st.st_mode)) return {path, false};
  const std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) fail(path, "cannot resolve the symlink", errno);
  return {fs::path(resolved.get()), false};
}

void write_temporary(const fs::path& tmp, const fs::path& target, std::span<const std::byte> bytes) {
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists) check_replaceable(target, st);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(target, "cannot create " + tmp.filename().string(), errno);
  const auto abandon = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(target, what, err);
  };
  if (exists) {  // the owner first: a change of owner clears the set-id bits
    struct stat made {};
    if (::fstat(fd, &made) != 0) abandon("cannot inspect " + tmp.filename().string());
    if ((made.st_uid != st.st_uid || made.st_gid != st.st_gid) && ::fchown(fd, st.st_uid, st.st_gid) != 0)
      abandon("cannot keep its owner, not replaced");
    if (::fchmod(fd, st.st_mode & 07777) != 0) abandon("cannot keep its permissions");
  }
  if (!write_all(fd, bytes)) abandon("write failed");
  if (::fsync(fd) != 0) abandon("fsync failed");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(target, "close failed", err);
  }
}

void rename_over(const fs::path& tmp, const fs::path& target) {
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(target, "rename failed", err);
  }
}

void write_through(const OutputTarget& target, std::span<const std::byte> bytes) {
  const fs::path& path = target.path;
  if (target.descriptor >= 0) {
    std::fflush(nullptr);  // what this process printed there before comes first
    if (!write_all(target.descriptor, bytes)) fail(path, "write failed", errno);
    return;
  }
  // Opened without waiting: a FIFO no process reads fails at once (ENXIO) instead of blocking
  // forever; the writes then wait as usual for a slow reader.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, errno == ENXIO ? "no process reads the FIFO" : "cannot open it", errno);
  if (const int flags = ::fcntl(fd, F_GETFL); flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path, "cannot open it", err);
  }
  if (!write_all(fd, bytes)) {
    const int err = errno;
    ::close(fd);
    fail(path, "write failed", err);
  }
  if (::close(fd) != 0) fail(path, "close failed", errno);
}

void write_output_file(const fs::path& path, std::span<const std::byte> bytes) {
  const OutputTarget t = resolve_output_target(path);
  if (t.write_through) return write_through(t, bytes);
  const fs::path tmp = temporary_for(t.path);
  write_temporary(tmp, t.path, bytes);
  rename_over(tmp, t.path);
}

void write_output_file(const fs::path& path, std::string_view text) { write_output_file(path, as_bytes(text)); }

}  // namespace kda::golden
