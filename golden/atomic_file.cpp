#include "golden/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace kda::golden {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& target, const std::string& what, int err) {
  throw AtomicWriteError("cannot write " + target.string() + ": " + what + ": " + std::strerror(err));
}

fs::path temporary_for(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() /
         (target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

// Writes bytes to a new temporary beside target; returns its path.
fs::path write_temporary(const fs::path& target, std::span<const std::byte> bytes) {
  const fs::path tmp = temporary_for(target);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(target, "cannot create " + tmp.filename().string(), errno);
  const auto abandon = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(target, what, err);
  };
  const auto* p = reinterpret_cast<const char*>(bytes.data());
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) abandon("write failed");
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("fsync failed");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(target, "close failed", err);
  }
  return tmp;
}

void rename_over(const fs::path& tmp, const fs::path& target) {
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(target, "rename failed", err);
  }
}

std::span<const std::byte> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

}  // namespace

void write_file_atomically(const fs::path& path, std::span<const std::byte> bytes) {
  rename_over(write_temporary(path, bytes), path);
}

void write_file_atomically(const fs::path& path, std::string_view text) { write_file_atomically(path, as_bytes(text)); }

StagedFiles::~StagedFiles() {
  for (const auto& [tmp, target] : staged_) ::unlink(tmp.c_str());
}

void StagedFiles::stage(const fs::path& target, std::span<const std::byte> bytes) {
  staged_.emplace_back(write_temporary(target, bytes), target);
}

void StagedFiles::stage(const fs::path& target, std::string_view text) { stage(target, as_bytes(text)); }

void StagedFiles::commit() {
  while (!staged_.empty()) {
    const auto [tmp, target] = staged_.front();
    staged_.erase(staged_.begin());
    rename_over(tmp, target);
  }
}

}  // namespace kda::golden
