// Loading the committed golden set for verification: every case the manifest lists, each
// file's SHA-256 checked against the manifest, and no case file left out of the manifest.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "golden/golden_case.hpp"
#include "golden/golden_manifest.hpp"

namespace kda::golden {

struct LoadedCase {
  ManifestEntry entry;
  std::filesystem::path path;
  GoldenCase c;            // valid when problem is empty
  std::string problem;     // missing file, hash mismatch, unreadable file
  bool malformed = false;  // the manifest's hash matches, but the file is not a readable case
};

struct LoadedSet {
  std::vector<LoadedCase> cases;
  std::vector<std::string> problems;  // set-level: unreadable manifest, files not in it
  bool manifest_unreadable = false;   // missing or malformed: a usage error, not a failed case
  bool ok() const;
};

LoadedSet load_set(const std::filesystem::path& manifest);

// The manifest the CLI uses when none is named, independent of where the build folder is:
// $KDA_GOLDEN_MANIFEST, else golden/manifest.json under the current folder (the repository
// root), else the one two folders above the executable (build*/tools/kda-harness), else an
// installed one (PREFIX/share/kda_harness/golden beside PREFIX/bin/kda-harness: `cmake
// --install` and the wheel), else the source tree this binary was built from.
std::filesystem::path default_manifest_path();
// The committed set in the source tree this binary was built from.
std::filesystem::path source_manifest_path();

}  // namespace kda::golden
