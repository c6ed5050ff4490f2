// `kda-harness golden regen`: writes every case of the catalog (golden_catalog.hpp) as
// <dir>/<name>.safetensors and the manifest, and reports what moved against the files that
// were there: which cases were added, changed (which tensors, by how much) or removed.
// Unchanged files are left as they are; regenerating an unchanged set changes no byte. Files
// are replaced only after every new one was written in full, in one commit that a kill cannot
// leave half done (golden/regen_commit.hpp). Of the other *.safetensors in the folder, only
// those the previous manifest listed are removed; the rest are left and reported.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "golden/golden_diff.hpp"

namespace kda::golden {

struct RegenOptions {
  std::filesystem::path dir;       // the case files
  std::filesystem::path manifest;  // the manifest (its case paths are relative to its folder)
  bool dry_run = false;            // report only, write nothing
};

struct RegenCase {
  std::string name;
  enum class Status { Unchanged, Added, Changed } status = Status::Unchanged;
  FileDiff diff;  // Changed: what moved
  int64_t bytes = 0;
};

struct RegenReport {
  std::vector<RegenCase> cases;
  std::vector<std::string> removed;  // files the previous manifest listed and no case owns any more
  std::vector<std::string> left;     // other *.safetensors in the folder: not regen's, left as they are
  int finished_commit = -1;          // files an interrupted regen's commit still had to move (-1: none)
  int64_t stale_temporaries = 0;     // temporaries an interrupted regen left, removed
  bool pending_commit = false;       // dry run: an interrupted regen's commit is waiting
  bool manifest_changed = false;
  int64_t total_bytes = 0;           // the case files together
  bool changed() const;
  std::string summary() const;
};

// Throws GenerationError (a spec that does not hold), AtomicWriteError (a file could not be
// written; nothing was replaced) or std::runtime_error (other I/O).
RegenReport regen(const RegenOptions& options);

// The file name of a case in the set.
std::string case_file_name(const std::string& case_name);

}  // namespace kda::golden
