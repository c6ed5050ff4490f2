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
  GoldenCase c;         // valid when problem is empty
  std::string problem;  // missing file, hash mismatch, unreadable file
};

struct LoadedSet {
  std::vector<LoadedCase> cases;
  std::vector<std::string> problems;  // set-level: unreadable manifest, files not in it
  bool ok() const;
};

LoadedSet load_set(const std::filesystem::path& manifest);

// Where the committed set lives in the source tree this binary was built from.
std::filesystem::path default_manifest_path();

}  // namespace kda::golden
