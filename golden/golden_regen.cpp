#include "golden/golden_regen.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "golden/atomic_file.hpp"
#include "golden/golden_generate.hpp"
#include "golden/golden_manifest.hpp"
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
  if (manifest_changed || !removed.empty()) return true;
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
  std::string s = fmt::format("golden regen: {} cases, {} unchanged, {} changed, {} added, {} removed; {} bytes of case "
                              "files; manifest {}\n",
                              cases.size(), same, changed_n, added, removed.size(), total_bytes,
                              manifest_changed ? "changed" : "unchanged");
  return s + detail;
}

RegenReport regen(const RegenOptions& o) {
  RegenReport report;
  if (!o.dry_run) fs::create_directories(o.dir);
  // Every new file is staged before any is replaced: a failed write leaves the previous set
  // and manifest as they were.
  StagedFiles staged;
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
      const std::vector<std::byte> old = read_file_bytes(path);
      if (old != bytes) {
        rc.status = RegenCase::Status::Changed;
        try {
          rc.diff = diff_files(read_safetensors(old), file);
        } catch (const SafetensorsError& e) {
          rc.diff.metadata.push_back(std::string("(the old file was unreadable: ") + e.what() + ")");
        }
        if (rc.diff.empty()) rc.diff.metadata.push_back("(same content, different byte layout)");
      }
    }
    if (rc.status != RegenCase::Status::Unchanged && !o.dry_run) staged.stage(path, bytes);
    report.total_bytes += rc.bytes;
    manifest.cases.push_back({spec.name, file_field(o.manifest, path), c.kind == CaseKind::Step ? "step" : "error",
                              spec.purpose, to_string(spec.config), c.steps, rc.bytes,
                              sha256_hex(std::span<const std::byte>(bytes)), spec.op});
    report.cases.push_back(std::move(rc));
  }
  if (fs::exists(o.dir))
    for (const auto& entry : fs::directory_iterator(o.dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".safetensors" && !owned.count(name)) report.removed.push_back(name);
    }
  std::sort(report.removed.begin(), report.removed.end());
  const std::string text = manifest_text(manifest);
  report.manifest_changed = read_text(o.manifest) != text;
  if (o.dry_run) return report;
  if (report.manifest_changed) staged.stage(o.manifest, text);
  staged.commit();
  for (const std::string& name : report.removed) fs::remove(o.dir / name);
  return report;
}

}  // namespace kda::golden
