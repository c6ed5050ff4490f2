#include "golden/golden_set.hpp"

#include <cstdlib>
#include <optional>
#include <set>
#include <system_error>

#include "golden/regen_commit.hpp"
#include "golden/safetensors.hpp"
#include "golden/sha256.hpp"

namespace kda::golden {
namespace fs = std::filesystem;

bool LoadedSet::ok() const {
  if (!problems.empty()) return false;
  for (const auto& c : cases)
    if (!c.problem.empty()) return false;
  return true;
}

fs::path source_manifest_path() { return fs::path(KDA_GOLDEN_SOURCE_DIR) / "manifest.json"; }

fs::path default_manifest_path() {
  if (const char* env = std::getenv("KDA_GOLDEN_MANIFEST"); env && *env) return env;
  const fs::path here = fs::path("golden") / "manifest.json";
  if (fs::exists(here)) return here;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path().parent_path() / "golden" / "manifest.json";
    if (fs::exists(beside)) return beside.lexically_normal();
    const fs::path installed = exe.parent_path().parent_path() / "share" / "kda_harness" / "golden" / "manifest.json";
    if (fs::exists(installed)) return installed.lexically_normal();
  }
  return source_manifest_path();
}

LoadedSet load_set(const fs::path& manifest_path) {
  LoadedSet set;
  if (const fs::path journal = regen_journal_path(manifest_path); fs::exists(journal))
    set.problems.push_back("an interrupted golden regen left " + journal.string() +
                           ": its files are half moved; `kda-harness golden regen` finishes the commit");
  Manifest m;
  try {
    m = read_manifest(manifest_path);
  } catch (const std::exception& e) {
    set.problems.push_back(e.what());
    set.manifest_unreadable = true;
    return set;
  }
  const fs::path root = manifest_path.parent_path();
  std::set<fs::path> listed_dirs;
  std::set<std::string> listed;
  for (const ManifestEntry& e : m.cases) {
    LoadedCase lc;
    lc.entry = e;
    lc.path = (root / e.file).lexically_normal();
    listed_dirs.insert(lc.path.parent_path());
    listed.insert(lc.path.string());
    try {
      // Read once: the digest comes with the tensors, and with the error of a malformed file.
      std::string hash, format_error;
      std::optional<SafetensorsFile> file;
      try {
        file = read_safetensors_file(lc.path, &hash);
      } catch (const SafetensorsError& ex) {
        if (hash.empty()) throw;  // not read (missing, not a regular file, an I/O error)
        format_error = ex.what();
      }
      if (hash != e.sha256) {
        lc.problem = "SHA-256 " + hash + " differs from the manifest's " + e.sha256;
      } else {
        lc.malformed = true;  // until it decodes
        if (!file) throw SafetensorsError(format_error);
        lc.c = decode(std::move(*file), e.name);
        lc.malformed = false;
        if (lc.c.op != e.op)  // judged as the manifest's operator, it would be skipped or misjudged
          lc.problem = "the file is a case of " + lc.c.op + ", the manifest lists it as one of " + e.op;
      }
    } catch (const std::exception& ex) {
      lc.problem = ex.what();
    }
    set.cases.push_back(std::move(lc));
  }
  for (const fs::path& dir : listed_dirs) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".safetensors" && !listed.count(entry.path().lexically_normal().string()))
        set.problems.push_back(entry.path().string() + " is not in the manifest");
  }
  return set;
}

}  // namespace kda::golden
