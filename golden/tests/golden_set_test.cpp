// The committed golden set loads with every hash matching its manifest, and a changed,
// missing or unlisted file is reported (on a copy in a scratch folder).
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include <fstream>

#include "golden/golden_catalog.hpp"
#include "golden/golden_set.hpp"
#include "golden/safetensors.hpp"

namespace kda::golden {
namespace {
namespace fs = std::filesystem;

fs::path scratch_copy(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kda_golden_set_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path source = source_manifest_path().parent_path();
  fs::copy(source / "cases", dir / "cases", fs::copy_options::recursive);
  fs::copy_file(source / "manifest.json", dir / "manifest.json");
  return dir;
}

TEST(GoldenSet, CommittedSetMatchesItsManifestAndTheCatalog) {
  const LoadedSet set = load_set(source_manifest_path());
  ASSERT_TRUE(set.ok()) << (set.problems.empty() ? "a case has a problem" : set.problems[0]);
  ASSERT_EQ(set.cases.size(), golden_specs().size());
  for (std::size_t i = 0; i < set.cases.size(); ++i) EXPECT_EQ(set.cases[i].entry.name, golden_specs()[i].name);
}

TEST(GoldenSet, ReportsAChangedByte) {
  const fs::path dir = scratch_copy("changed");
  const fs::path victim = dir / "cases" / "kda_replayssm.bounded_gate.safetensors";
  auto bytes = read_file_bytes(victim);
  bytes.back() ^= std::byte{0x01};
  write_file_bytes(victim, bytes);
  const LoadedSet set = load_set(dir / "manifest.json");
  EXPECT_FALSE(set.ok());
  int flagged = 0;
  for (const auto& c : set.cases)
    if (!c.problem.empty()) {
      ++flagged;
      EXPECT_EQ(c.entry.name, "kda_replayssm.bounded_gate");
      EXPECT_NE(c.problem.find("SHA-256"), std::string::npos) << c.problem;
    }
  EXPECT_EQ(flagged, 1);
  fs::remove_all(dir);
}

TEST(GoldenSet, ReportsMissingAndUnlistedFiles) {
  const fs::path dir = scratch_copy("files");
  fs::remove(dir / "cases" / "kda_replayssm.l2norm_off.safetensors");
  fs::copy_file(dir / "cases" / "kda_replayssm.l2norm_on.safetensors", dir / "cases" / "stray.safetensors");
  const LoadedSet set = load_set(dir / "manifest.json");
  EXPECT_FALSE(set.ok());
  ASSERT_EQ(set.problems.size(), 1u);
  EXPECT_NE(set.problems[0].find("stray.safetensors"), std::string::npos);
  bool missing = false;
  for (const auto& c : set.cases)
    missing = missing || (c.entry.name == "kda_replayssm.l2norm_off" && !c.problem.empty());
  EXPECT_TRUE(missing);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kda::golden
