// Whole-or-nothing writes: a set staged with one failing file replaces none of its targets
// and leaves no temporary behind; a committed set replaces all of them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <unistd.h>

#include "golden/atomic_file.hpp"

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
  write_file_atomically(d / "a.txt", std::string_view("old a"));
  {
    StagedFiles staged;
    staged.stage(d / "a.txt", std::string_view("new a"));
    EXPECT_THROW(staged.stage(d / "missing" / "b.txt", std::string_view("new b")), AtomicWriteError);
  }
  EXPECT_EQ(read(d / "a.txt"), "old a");
  EXPECT_EQ(entries(d), 1u);  // no temporary left
  fs::remove_all(d);
}

TEST(AtomicFile, ACommittedSetReplacesEveryTarget) {
  const fs::path d = fresh_dir("commit");
  write_file_atomically(d / "a.txt", std::string_view("old a"));
  StagedFiles staged;
  staged.stage(d / "a.txt", std::string_view("new a"));
  staged.stage(d / "b.txt", std::string_view("new b"));
  EXPECT_EQ(read(d / "a.txt"), "old a");  // nothing replaced before commit
  staged.commit();
  EXPECT_EQ(read(d / "a.txt"), "new a");
  EXPECT_EQ(read(d / "b.txt"), "new b");
  EXPECT_EQ(entries(d), 2u);
  fs::remove_all(d);
}

TEST(AtomicFile, AnUnwritableTargetIsAnError) {
  EXPECT_THROW(write_file_atomically("/nonexistent-folder/x.txt", std::string_view("x")), AtomicWriteError);
}

}  // namespace
}  // namespace kda::golden
