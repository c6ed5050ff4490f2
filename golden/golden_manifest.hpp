// golden/manifest.json: every case of the set with its purpose and a content hash (SHA-256
// of the file's bytes, golden/sha256.hpp). Written deterministically (fixed key order, two-
// space indent, trailing newline), so regenerating an unchanged set leaves it byte-identical.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kda::golden {

// The operator a case file without kda.op, or a manifest entry without "op", is a case of: the
// default operator (engine/description/operator.hpp).
std::string default_op();

struct ManifestEntry {
  std::string name;
  std::string file;  // relative to the manifest's folder, '/'-separated
  std::string kind;  // "step" or "error"
  std::string purpose;
  std::string config;  // the CaseConfig line the case was generated from
  int64_t steps = 1;
  int64_t bytes = 0;
  std::string sha256;
  std::string op = default_op();  // the operator; "op" is written only for another one than the default
};

struct Manifest {
  std::vector<ManifestEntry> cases;  // in the catalog's order
};

inline constexpr const char* kManifestFormat = "kda-golden-manifest/1";

std::string manifest_text(const Manifest& m);
// Throws std::runtime_error on a malformed manifest.
Manifest parse_manifest(std::string_view text);
Manifest read_manifest(const std::filesystem::path& path);

}  // namespace kda::golden
