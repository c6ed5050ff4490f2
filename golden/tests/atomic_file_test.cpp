// Whole-or-nothing writes: a set staged with one failing file replaces none of its targets
// and leaves no temporary behind; a committed set replaces all of them. A replaced file keeps
// its permissions; a symlink is never replaced. (FIFOs, devices and interrupted commits:
// tools/tests/cli_reliability_test.py.)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <unistd.h>

#include "golden/atomic_file.hpp"
#include "golden/regen_commit.hpp"

namespace kda::golden {
namespace {
namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("kda_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::size_t entries(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

TEST(AtomicFile, AFailedStageReplacesNothing) {
  const fs::path d = fresh_dir("fail");
  write_output_file(d / "a.txt", std::string_view("old a"));
  {
    RegenCommit commit(d / "manifest.json");
    commit.stage(d / "a.txt", as_bytes("new a"));
    EXPECT_THROW(commit.stage(d / "missing" / "b.txt", as_bytes("new b")), AtomicWriteError);
  }
  EXPECT_EQ(read(d / "a.txt"), "old a");
  EXPECT_EQ(entries(d), 1u);  // no temporary left
  fs::remove_all(d);
}

TEST(AtomicFile, ACommittedSetReplacesEveryTarget) {
  const fs::path d = fresh_dir("commit");
  write_output_file(d / "a.txt", std::string_view("old a"));
  write_output_file(d / "gone.txt", std::string_view("listed before"));
  RegenCommit commit(d / "manifest.json");
  commit.stage(d / "a.txt", as_bytes("new a"));
  commit.stage(d / "b.txt", as_bytes("new b"));
  commit.remove_at_commit(d / "gone.txt");
  EXPECT_EQ(read(d / "a.txt"), "old a");  // nothing replaced before commit
  commit.commit();
  EXPECT_EQ(read(d / "a.txt"), "new a");
  EXPECT_EQ(read(d / "b.txt"), "new b");
  EXPECT_EQ(entries(d), 2u);  // no journal, no temporary, gone.txt removed
  fs::remove_all(d);
}

TEST(AtomicFile, ARegularFileKeepsItsPermissions) {
  const fs::path d = fresh_dir("mode");
  write_output_file(d / "a.txt", std::string_view("old"));
  fs::permissions(d / "a.txt", fs::perms::owner_read | fs::perms::owner_write);
  write_output_file(d / "a.txt", std::string_view("new"));
  EXPECT_EQ(read(d / "a.txt"), "new");
  EXPECT_EQ(fs::status(d / "a.txt").permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  fs::remove_all(d);
}

TEST(AtomicFile, ASymlinkToNothingIsRefusedAndKept) {
  const fs::path d = fresh_dir("dangling");
  fs::create_symlink(d / "nowhere" / "x", d / "link");
  EXPECT_THROW(write_output_file(d / "link", std::string_view("x")), AtomicWriteError);
  EXPECT_TRUE(fs::is_symlink(d / "link"));
  fs::remove_all(d);
}

TEST(AtomicFile, AnUnwritableTargetIsAnError) {
  EXPECT_THROW(write_output_file("/nonexistent-folder/x.txt", std::string_view("x")), AtomicWriteError);
}

}  // namespace
}  // namespace kda::golden
