#include "golden/regen_commit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "golden/atomic_file.hpp"

namespace kda::golden {
namespace fs = std::filesystem;
namespace {

constexpr const char* kJournalFormat = "kda-golden-regen-journal/1";

fs::path temporary_of(const fs::path& target) { return temporary_beside(target, kRegenTemporarySuffix); }

// Makes a rename in dir durable before the next step depends on it.
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

int apply(const nlohmann::json& journal) {
  int moved = 0;
  for (const auto& r : journal.at("rename")) {
    const fs::path tmp = r.at(0).get<std::string>(), target = r.at(1).get<std::string>();
    if (fs::exists(tmp)) rename_over(tmp, target), ++moved;  // absent: renamed before the kill
  }
  for (const auto& f : journal.at("remove")) {
    std::error_code ec;
    if (fs::remove(f.get<std::string>(), ec)) ++moved;
  }
  return moved;
}

}  // namespace

fs::path regen_journal_path(const fs::path& manifest) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(manifest, ec);
  if (ec) resolved = manifest;
  return resolved.string() + ".regen-journal";
}

RegenCommit::RegenCommit(const fs::path& manifest) : journal_(regen_journal_path(manifest)) {}

RegenCommit::~RegenCommit() {
  for (const auto& [tmp, target] : renames_) ::unlink(tmp.c_str());
}

void RegenCommit::stage(const fs::path& target, std::span<const std::byte> bytes) {
  const OutputTarget t = resolve_output_target(target);
  if (t.write_through) {
    write_through_.emplace_back(t, std::vector<std::byte>(bytes.begin(), bytes.end()));
    return;
  }
  const fs::path abs = fs::absolute(t.path);
  write_temporary(temporary_of(abs), abs, bytes);
  renames_.emplace_back(temporary_of(abs), abs);
}

void RegenCommit::remove_at_commit(const fs::path& file) { removals_.push_back(fs::absolute(file)); }

void RegenCommit::commit() {
  // A device or FIFO cannot take part in a rename: it is written first, so that a write that
  // fails there (--manifest /dev/full) leaves every file as it was.
  for (const auto& [target, bytes] : write_through_) write_through(target, bytes);
  nlohmann::json journal = {{"format", kJournalFormat}, {"rename", nlohmann::json::array()}, {"remove", nlohmann::json::array()}};
  for (const auto& [tmp, target] : renames_) journal["rename"].push_back({tmp.string(), target.string()});
  for (const auto& f : removals_) journal["remove"].push_back(f.string());
  const std::string text = journal.dump(1) + "\n";
  const fs::path journal_tmp = temporary_of(journal_);
  write_temporary(journal_tmp, journal_, as_bytes(text));
  rename_over(journal_tmp, journal_);  // the commit point
  sync_folder(journal_.parent_path());
  renames_.clear();  // theirs now: the journal finishes them
  apply(journal);
  ::unlink(journal_.c_str());
}

int finish_interrupted_commit(const fs::path& manifest) {
  const fs::path journal_file = regen_journal_path(manifest);
  if (!fs::exists(journal_file)) return -1;
  std::ifstream in(journal_file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  nlohmann::json journal;
  try {
    journal = nlohmann::json::parse(s.str());
    if (journal.at("format") != kJournalFormat) throw std::runtime_error("unknown format");
    const int moved = apply(journal);
    ::unlink(journal_file.c_str());
    return moved;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("cannot finish the interrupted commit in " + journal_file.string() + ": " + e.what());
  }
}

std::vector<fs::path> remove_stale_temporaries(const std::vector<fs::path>& targets) {
  std::vector<fs::path> removed;
  for (const fs::path& target : targets) {
    std::error_code ec;
    const fs::path tmp = temporary_of(fs::weakly_canonical(target, ec));
    if (fs::is_regular_file(tmp, ec) && fs::remove(tmp, ec)) removed.push_back(tmp);
  }
  return removed;
}

}  // namespace kda::golden
