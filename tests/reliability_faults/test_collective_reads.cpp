// The partition reads that collective frame operations make outside any task (quantile's order statistics,
// cumsum's totals, shift's edges, head's rows, sort's and merge's samples, rolling's tail rows, resample's bin
// ends, the row counts of a frame not yet run, local_values' copy, write_hdf5's mask pass and its rounds of writes,
// write_csv's timestamp pass) fail on one rank: SLAB_FAULT=partition_read:1:0 (CMakeLists.txt) makes rank 1's first
// such read throw (partition_read:1:6, its seventh: write_hdf5's first round), one operation per process
// (--gtest_filter). Every rank must end with that error, promptly; without Comm::run_collectively around the read the
// other ranks waited in the exchange (or the collective HDF5 write) that follows. The files written are then absent.
#include <gtest/gtest.h>

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "reliability_record.hpp"
#include "slab/core/fault.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/quantile.hpp"
#include "slab/frame/resample.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"
#include "slab/io/csv.hpp"
#include "slab/io/frame_io.hpp"
#include "test_engine.hpp"
#include "world.hpp"

namespace {

using slab::frame::Frame;
using slab::frame::LocalColumn;
using slab::frame::LocalTable;

/// 600 rows a rank in partitions of 100: k, x, an hourly timestamp t.
Frame rows_on_every_rank(slab::Engine& e) {
  const std::int64_t rank = slab::testing::world_rank(), n = 600;
  std::vector<std::int64_t> k, t;
  std::vector<double> x;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = rank * n + i;
    k.push_back(r % 37);
    x.push_back(static_cast<double>((r * 7919) % 1000) / 8.0);
    t.push_back(1700000000000000000 + r * 3600000000000);
  }
  LocalTable table;
  table.add(LocalColumn::int64("k", k));
  table.add(LocalColumn::float64("x", x));
  table.add(LocalColumn::timestamp("t", t));
  return Frame::from_local_table(e, table, 100);
}

/// `op` over the frame must end on every rank with rank 1's injected partition read failure. Rank 0 records the
/// case (docs/RELIABILITY.md, fault_injection) with every rank's verdict and the slowest rank's time.
void fails_on_every_rank(const std::function<void(const Frame&)>& op) {
  ASSERT_TRUE(slab::fault_injection_armed()) << "run with SLAB_FAULT=partition_read:1:0 (CMakeLists.txt)";
  if (slab::testing::world_size() < 2) GTEST_SKIP() << "needs a second rank";
  slab::testing::Engine e;
  const Frame f = rows_on_every_rank(e);
  const auto start = std::chrono::steady_clock::now();
  try {
    op(f);
    ADD_FAILURE() << "rank " << slab::testing::world_rank() << ": the operation went on past rank 1's failed read";
  } catch (const slab::Error& error) {
    EXPECT_NE(std::string(error.what()).find("injected fault at 'partition_read'"), std::string::npos)
        << "rank " << slab::testing::world_rank() << ": " << error.what();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), slowest = 0;
  int ok = ::testing::Test::HasFailure() ? 0 : 1, all = 0;
  MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (slab::testing::world_rank() != 0) return;
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  char detail[96];
  std::snprintf(detail, sizeof detail, "every rank ended in %.2f s", slowest);
  slab::testing::record_reliability(
      "fault_injection",
      "partition_read on rank 1 of " + std::to_string(slab::testing::world_size()) + ", in " + name + " outside a task",
      "every rank ends with rank 1's error, never a hang", all == 1,
      all == 1 ? detail : "a rank went on or ended with another error", slab::testing::world_size());
}

TEST(CollectiveReads, Quantile) {
  fails_on_every_rank([](const Frame& f) { (void)slab::frame::quantile(f, "x", 0.3); });
}

TEST(CollectiveReads, Cumsum) {
  fails_on_every_rank([](const Frame& f) { (void)slab::frame::cumsum(f, {"x"}).gather_all(); });
}

TEST(CollectiveReads, Shift) {
  fails_on_every_rank([](const Frame& f) { (void)slab::frame::shift(f, 3, {"x"}).gather_all(); });
}

TEST(CollectiveReads, Head) {
  fails_on_every_rank([](const Frame& f) { (void)slab::frame::head(f, 700); });
}

TEST(CollectiveReads, SortValues) {
  fails_on_every_rank([](const Frame& f) { (void)f.sort_values("x").gather_all(); });
}

TEST(CollectiveReads, HashMerge) {
  fails_on_every_rank([](const Frame& f) {
    (void)slab::frame::merge(f, f, {"k"}, {.strategy = slab::frame::JoinStrategy::hash}).gather_all();
  });
}

TEST(CollectiveReads, Rolling) {
  fails_on_every_rank([](const Frame& f) { (void)f.rolling(50)["x"].mean().to_frame().gather_all(); });
}

TEST(CollectiveReads, Resample) {
  fails_on_every_rank([](const Frame& f) { (void)f.resample("1D", "t").sum().gather_all(); });
}

TEST(CollectiveReads, LocalValues) {
  fails_on_every_rank([](const Frame& f) { (void)slab::frame::local_values(f, "x"); });
}

/// A file of this test and rank count, none there before it runs.
std::string fresh_file(const std::string& name) {
  const std::string path =
      ::testing::TempDir() + "slab_collective_read_" + name + "_np" + std::to_string(slab::testing::world_size());
  MPI_Barrier(MPI_COMM_WORLD);
  if (slab::testing::world_rank() == 0) std::filesystem::remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

// The mask pass (which columns need a .valid dataset), before the file is opened: no file.
TEST(CollectiveReads, WriteHdf5) {
  const std::string path = fresh_file("masks.h5");
  fails_on_every_rank([&](const Frame& f) { slab::io::write_hdf5(f, path, "/g"); });
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Run with partition_read:1:6: rank 1's first round of writes (after its six partitions' mask pass), while the
// others would be in the round's collective writes: the group is not there.
TEST(CollectiveReads, WriteHdf5Rounds) {
  const std::string path = fresh_file("rounds.h5");
  fails_on_every_rank([&](const Frame& f) { slab::io::write_hdf5(f, path, "/g"); });
  slab::testing::Engine e;
  EXPECT_THROW((void)slab::io::read_hdf5(e, path, "/g"), slab::Error);
}

// The timestamp pass (pandas' format per chunk of rows), before the exchange of its levels: no file.
TEST(CollectiveReads, WriteCsv) {
  const std::string path = fresh_file("rows.csv");
  fails_on_every_rank([&](const Frame& f) { slab::io::write_csv(f, path); });
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
