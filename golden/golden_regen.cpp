#include "golden/golden_regen.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "golden/atomic_file.hpp"
#include "golden/golden_catalog.hpp"
#include "golden/golden_generate.hpp"
#include "golden/golden_manifest.hpp"
#include "golden/regen_commit.hpp"
#include "golden/sha256.hpp"

namespace kda::golden {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

std::string file_field(const fs::path& manifest, const fs::path& file) {
  fs::path rel = fs::absolute(file).lexically_normal().lexically_relative(fs::absolute(manifest).parent_path().lexically_normal());
  return rel.generic_string();
}

}  // namespace

std::string case_file_name(const std::string& case_name) { return case_name + ".safetensors"; }

bool RegenReport::changed() const {
  if (manifest_changed || pending_commit || !removed.empty()) return true;
  for (const auto& c : cases)
    if (c.status != RegenCase::Status::Unchanged) return true;
  return false;
}

std::string RegenReport::summary() const {
  int64_t added = 0, changed_n = 0, same = 0;
  std::string detail;
  for (const auto& c : cases) {
    if (c.status == RegenCase::Status::Unchanged) { ++same; continue; }
    if (c.status == RegenCase::Status::Added) {
      ++added;
      detail += fmt::format("  added    {} ({} bytes)\n", c.name, c.bytes);
    } else {
      ++changed_n;
      detail += fmt::format("  changed  {}\n{}", c.name, c.diff.describe("             "));
    }
  }
  for (const auto& r : removed) detail += "  removed  " + r + "\n";
  for (const auto& l : left) detail += "  left     " + l + " (no manifest listed it: not regen's to remove)\n";
  if (finished_commit >= 0)
    detail += fmt::format("  finished the commit of an interrupted regen ({} files moved or removed)\n", finished_commit);
  if (stale_temporaries > 0)
    detail += fmt::format("  removed {} temporary file(s) an interrupted regen left\n", stale_temporaries);
  if (pending_commit) detail += "  an interrupted regen's commit is pending: golden regen (not --dry-run) finishes it\n";
  std::string s = fmt::format("golden regen: {} cases, {} unchanged, {} changed, {} added, {} removed; {} bytes of case "
                              "files; manifest {}\n",
                              cases.size(), same, changed_n, added, removed.size(), total_bytes,
                              manifest_changed ? "changed" : "unchanged");
  return s + detail;
}

// The case files the previous manifest listed, as absolute paths: the only ones regen removes
// or replaces. A manifest file that is no golden manifest is someone else's: regen refuses to
// replace it (std::runtime_error).
std::set<fs::path> previously_listed(const fs::path& manifest_path, bool manifest_is_file) {
  std::set<fs::path> listed;
  if (!manifest_is_file || !fs::exists(manifest_path)) return listed;  // none yet, or a FIFO/device it writes to
  try {
    for (const ManifestEntry& e : read_manifest(manifest_path).cases)
      listed.insert(fs::absolute(manifest_path.parent_path() / e.file).lexically_normal());
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{} is no golden manifest ({}): regen does not replace it; move it away or "
                                         "name another --manifest",
                                         manifest_path.string(), e.what()));
  }
  return listed;
}

RegenReport regen(const RegenOptions& o) {
  RegenReport report;
  // The commit's journal goes beside the manifest's file; for a manifest written through (a
  // device, a FIFO, an open descriptor) into the cases folder, which the commit changes.
  const bool manifest_is_file = !resolve_output_target(o.manifest).write_through;
  const fs::path anchor = manifest_is_file ? o.manifest : o.dir / "manifest.json";
  std::vector<fs::path> targets{regen_journal_path(anchor)};
  if (manifest_is_file) targets.push_back(o.manifest);
  for (const GoldenSpec& spec : golden_specs()) targets.push_back(o.dir / case_file_name(spec.name));
  if (o.dry_run) {
    report.pending_commit = fs::exists(regen_journal_path(anchor));
  } else {
    fs::create_directories(o.dir);
    report.finished_commit = finish_interrupted_commit(anchor);
    report.stale_temporaries = static_cast<int64_t>(remove_stale_temporaries(targets).size());
  }
  const std::set<fs::path> listed_before = previously_listed(o.manifest, manifest_is_file);
  // Every new file is staged before any is replaced, and the commit is one rename
  // (golden/regen_commit.hpp): a failed write or a kill leaves the previous set as it was.
  RegenCommit commit(anchor);
  Manifest manifest;
  std::set<std::string> owned;
  for (const GoldenSpec& spec : golden_specs()) {
    const GoldenCase c = generate_case(spec);
    const SafetensorsFile file = encode(c);
    const std::vector<std::byte> bytes = write_safetensors(file);
    const fs::path path = o.dir / case_file_name(spec.name);
    owned.insert(case_file_name(spec.name));
    RegenCase rc;
    rc.name = spec.name;
    rc.bytes = static_cast<int64_t>(bytes.size());
    if (!fs::exists(path)) {
      rc.status = RegenCase::Status::Added;
    } else {
      // Only a regular file is read (a device or FIFO may never end) and only one the previous
      // manifest listed is replaced (another is someone else's).
      if (!fs::is_regular_file(path))
        throw std::runtime_error(path.string() + " is no regular file: regen neither reads nor replaces it");
      const std::vector<std::byte> old = read_file_bytes(path);
      if (old != bytes) {
        rc.status = RegenCase::Status::Changed;
        try {
          rc.diff = diff_files(read_safetensors(old), file);
        } catch (const SafetensorsError& e) {
          rc.diff.metadata.push_back(std::string("(the old file was unreadable: ") + e.what() + ")");
        }
        if (rc.diff.empty()) rc.diff.metadata.push_back("(same content, different byte layout)");
        if (!listed_before.count(fs::absolute(path).lexically_normal()))
          throw std::runtime_error(path.string() + " differs from the case regen writes there and no previous manifest "
                                   "lists it: regen does not replace it; move it away or choose another --dir");
      }
    }
    if (rc.status != RegenCase::Status::Unchanged && !o.dry_run) commit.stage(path, bytes);
    report.total_bytes += rc.bytes;
    manifest.cases.push_back({spec.name, file_field(o.manifest, path), c.kind == CaseKind::Step ? "step" : "error",
                              spec.purpose, to_string(spec.config), c.steps, rc.bytes,
                              sha256_hex(std::span<const std::byte>(bytes)), spec.op});
    report.cases.push_back(std::move(rc));
  }
  if (fs::exists(o.dir))
    for (const auto& entry : fs::directory_iterator(o.dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".safetensors" || owned.count(name)) continue;
      if (listed_before.count(fs::absolute(entry.path()).lexically_normal())) {
        report.removed.push_back(name);
        if (!o.dry_run) commit.remove_at_commit(entry.path());
      } else {
        report.left.push_back(name);
      }
    }
  std::sort(report.removed.begin(), report.removed.end());
  std::sort(report.left.begin(), report.left.end());
  const std::string text = manifest_text(manifest);
  // A manifest written to a FIFO or device is not read back (a read would wait for a writer).
  report.manifest_changed = !fs::is_regular_file(o.manifest) || read_text(o.manifest) != text;
  if (o.dry_run) return report;
  if (report.manifest_changed) commit.stage(o.manifest, as_bytes(text));
  commit.commit();
  return report;
}

}  // namespace kda::golden
