#include "golden/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
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
  return target.parent_path() /
         (target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
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

OutputTarget resolve_output_target(const fs::path& path) {
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
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(target, "cannot create " + tmp.filename().string(), errno);
  const auto abandon = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(target, what, err);
  };
  if (struct stat st {}; ::stat(target.c_str(), &st) == 0 && ::fchmod(fd, st.st_mode & 07777) != 0)
    abandon("cannot keep its permissions");
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

void write_through(const fs::path& path, std::span<const std::byte> bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, "cannot open it", errno);
  if (!write_all(fd, bytes)) {
    const int err = errno;
    ::close(fd);
    fail(path, "write failed", err);
  }
  if (::close(fd) != 0) fail(path, "close failed", errno);
}

void write_output_file(const fs::path& path, std::span<const std::byte> bytes) {
  const OutputTarget t = resolve_output_target(path);
  if (t.write_through) return write_through(t.path, bytes);
  const fs::path tmp = temporary_for(t.path);
  write_temporary(tmp, t.path, bytes);
  rename_over(tmp, t.path);
}

void write_output_file(const fs::path& path, std::string_view text) { write_output_file(path, as_bytes(text)); }

}  // namespace kda::golden
