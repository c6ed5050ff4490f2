// The commit of a regenerated golden set: all or nothing, even when the process is killed.
// Every new file is first written whole to `<target>.regen-tmp`. Then one journal beside the
// manifest (`<manifest>.regen-journal`) is written atomically: its rename is the single step
// that commits. It lists every rename (temporary -> target, the manifest last) and every file
// to remove; they are applied and the journal removed. Every step can be redone, so a regen
// that finds a journal finishes it first, and `golden verify` fails on a set that has one
// (golden_set.cpp) instead of judging a half-moved set. A kill before the commit point leaves
// the previous set whole plus `.regen-tmp` files, which the next regen removes: those and the
// files the previous manifest listed are the only files regen ever deletes.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "golden/atomic_file.hpp"

namespace kda::golden {

inline constexpr std::string_view kRegenTemporarySuffix = ".regen-tmp";

// `<manifest>.regen-journal`, beside the file the manifest path resolves to.
std::filesystem::path regen_journal_path(const std::filesystem::path& manifest);

class RegenCommit {
 public:
  explicit RegenCommit(const std::filesystem::path& manifest);
  RegenCommit(const RegenCommit&) = delete;
  RegenCommit& operator=(const RegenCommit&) = delete;
  ~RegenCommit();  // removes the temporaries of a commit that did not happen

  // Writes target's new bytes to its temporary (throws AtomicWriteError; nothing replaced).
  // A symlink target is resolved (the link stays); a device, FIFO or open descriptor is
  // written at commit, before anything is replaced.
  void stage(const std::filesystem::path& target, std::span<const std::byte> bytes);
  void remove_at_commit(const std::filesystem::path& file);
  void commit();

 private:
  std::filesystem::path journal_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> renames_;  // (temporary, target)
  std::vector<std::filesystem::path> removals_;
  std::vector<std::pair<OutputTarget, std::vector<std::byte>>> write_through_;
};

// Finishes the commit a killed regen left beside manifest; the number of files it moved or
// removed, or -1 when there was no journal. Throws std::runtime_error on an unreadable journal.
int finish_interrupted_commit(const std::filesystem::path& manifest);

// Removes the `<target>.regen-tmp` of each target where a killed regen left one; returns them.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::vector<std::filesystem::path>& targets);

}  // namespace kda::golden
