// Security of the spill path: the spill directory is private (0700, owned by this user, made fresh under the
// root) and spill files are 0600 even under a permissive umask; file names come from a counter, never from
// data or labels, so a label that looks like a path cannot place a file anywhere. Per rank; rank 0 records.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "reliability_record.hpp"
#include "slab/memory/memory_manager.hpp"
#include "world.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kBuffer = 16 * 1024;

using slab::testing::world_rank;
using slab::testing::world_size;

/// Every rank's verdict; rank 0 writes one line.
void record(const std::string& name, const std::string& expected, const std::string& detail) {
  int ok = !::testing::Test::HasFailure(), all = 0;
  MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (world_rank() == 0) slab::testing::record_reliability("security", name, expected, all == 1, detail, world_size());
}

class SpillPrivacy : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path("/tmp") / ("slab-security-" + std::to_string(::getpid()) + "-" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    old_umask_ = ::umask(0);  // the most permissive umask: modes must not depend on it
  }
  void TearDown() override {
    ::umask(old_umask_);
    fs::remove_all(root_);
  }
  slab::MemoryConfig config() const {
    slab::MemoryConfig c;
    c.device_limit = kBuffer;
    c.host_limit = kBuffer;
    c.spill_root = root_.string();
    return c;
  }
  fs::path root_;
  mode_t old_umask_ = 022;
};

TEST_F(SpillPrivacy, DirectoryIs0700AndFilesAre0600) {
  std::string detail;
  {
    slab::MemoryManager memory(config());
    std::vector<slab::BufferPtr> keep;
    for (int i = 0; i < 4; ++i) keep.push_back(memory.allocate(kBuffer, "secret-data"));  // 2 end up on disk
    const std::string dir = memory.spill_dir();
    ASSERT_FALSE(dir.empty());
    struct stat st {};
    ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u) << dir;
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_EQ(fs::path(dir).parent_path(), root_);
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
      EXPECT_TRUE(S_ISREG(st.st_mode)) << e.path();
      EXPECT_EQ(st.st_mode & 07777, 0600u) << e.path();
      ++files;
    }
    EXPECT_EQ(files, 2);
    detail = "under umask 0: spill directory 0700 owned by this user, " + std::to_string(files) + " spill files 0600";
  }
  record("spill directory 0700 and spill files 0600 under umask 0", "private directory, owner-only files", detail);
}

TEST_F(SpillPrivacy, FileNamesNeverComeFromLabels) {
  const std::vector<std::string> labels = {"../../escape", "/tmp/evil", "a b;rm -rf ~", "$(touch pwned)", "x\ny"};
  std::string dir;
  {
    slab::MemoryManager memory(config());
    std::vector<slab::BufferPtr> keep;
    for (const auto& l : labels) keep.push_back(memory.allocate(kBuffer, l));
    dir = memory.spill_dir();
    ASSERT_FALSE(dir.empty());
    // Only the private directory under the root, holding only counter-named files.
    std::vector<fs::path> under_root;
    for (const auto& e : fs::recursive_directory_iterator(root_)) under_root.push_back(e.path());
    const std::regex counter_name("spill-[0-9]+");
    int files = 0;
    for (const auto& p : under_root) {
      if (p == fs::path(dir)) continue;
      EXPECT_EQ(p.parent_path(), fs::path(dir)) << p;
      EXPECT_TRUE(std::regex_match(p.filename().string(), counter_name)) << p;
      ++files;
    }
    EXPECT_EQ(files, static_cast<int>(labels.size()) - 2);
    EXPECT_FALSE(fs::exists(root_.parent_path() / "escape"));
    EXPECT_FALSE(fs::exists("/tmp/evil"));
  }
  EXPECT_FALSE(fs::exists(dir)) << "the spill directory outlived its manager";
  record("spill file names with path-like buffer labels (../../escape, /tmp/evil, shell metacharacters)",
         "files named spill-<counter> inside the private directory only", "3 files, all spill-N in the spill dir");
}

}  // namespace
