// Output files written whole or not at all, without harming what the path names:
// - a path that names a descriptor this process has open (/dev/stdout, /dev/stderr,
//   /dev/fd/N, /proc/self/fd/N, or a symlink to one) is written through that descriptor,
//   whatever it is open on: at its offset, or appended where it was opened O_APPEND (`>>
//   ci.log`). Replacing the file it is open on would drop what is already there.
// - a regular file, or a name that does not exist yet, is replaced atomically: the bytes go to
//   a temporary beside it (same folder, so the rename cannot cross file systems), which is
//   written, flushed to disk and closed with every error checked, then renamed over it (its
//   permission bits and owner kept). A failure removes the temporary; the file keeps its
//   content. A file that may not be replaced is refused: one without write permission (for
//   its mode, or for this user), one whose owner cannot be kept, one with other hard links
//   (which a rename would cut off).
// - a symlink is never replaced: what it resolves to is written by these same rules (a regular
//   file there atomically, under its resolved path); a symlink to nothing is refused.
// - anything else (a device such as /dev/null, a FIFO, a socket) is opened and written
//   through: it stays what it was. A FIFO that no process reads is refused at once.
// Every failure throws AtomicWriteError, naming the path and the reason.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kda::golden {

class AtomicWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_output_file(const std::filesystem::path& path, std::span<const std::byte> bytes);
void write_output_file(const std::filesystem::path& path, std::string_view text);

// Where write_output_file puts a path's bytes: the file to replace atomically (the path, or
// the regular file a symlink resolves to), the path to write through, or the open descriptor
// of this process the path names (descriptor >= 0; path is the path given).
struct OutputTarget {
  std::filesystem::path path;
  bool write_through = false;
  int descriptor = -1;
};
OutputTarget resolve_output_target(const std::filesystem::path& path);

// The steps of an atomic replacement, for a commit of several files (golden/regen_commit.hpp):
// writes bytes to a new file `temporary` (which must not exist), with the permission bits of
// `target` where it exists; renames temporary over target. Both throw AtomicWriteError
// naming target, and remove the temporary on failure.
void write_temporary(const std::filesystem::path& temporary, const std::filesystem::path& target,
                     std::span<const std::byte> bytes);
void rename_over(const std::filesystem::path& temporary, const std::filesystem::path& target);
// Writes bytes through the target: its descriptor, else the existing non-regular file it
// opens.
void write_through(const OutputTarget& target, std::span<const std::byte> bytes);

// `<target><suffix>` beside target, the name cut short where it would pass the file
// system's limit on a name's length.
std::filesystem::path temporary_beside(const std::filesystem::path& target, std::string_view suffix);

std::span<const std::byte> as_bytes(std::string_view text);

}  // namespace kda::golden
