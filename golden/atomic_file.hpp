// Files written whole or not at all. Bytes go to a temporary file beside the target (same
// folder, so the rename cannot cross file systems), which is written, flushed to disk and
// closed with every error checked, then renamed over the target. A failure removes the
// temporary and throws AtomicWriteError; the target keeps its previous content.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kda::golden {

class AtomicWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// A set of files replaced together: stage() writes each one's temporary (throwing on the
// first failure), commit() renames them all over their targets. Temporaries not committed
// are removed by the destructor, so a failed stage leaves every target as it was.
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  void stage(const std::filesystem::path& target, std::span<const std::byte> bytes);
  void stage(const std::filesystem::path& target, std::string_view text);
  void commit();

 private:
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // (temporary, target)
};

}  // namespace kda::golden
