// Soak: 1,000 cycles of persist (write a pattern), spill (device -> host -> disk under small limits), reload
// (pin: read back and verify every byte) and free, on every rank at once. What a long job would leak must
// stay flat: host RSS, open file descriptors, and the bytes and files in the spill directory, compared
// after a warm-up and at the end. Per rank (no collective inside the loop); rank 0 records the outcome.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "reliability_record.hpp"
#include "slab/memory/memory_manager.hpp"
#include "../common/sanitizer.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kBuffer = 32 * 1024;  // bytes per buffer
constexpr int kBuffers = 6;                   // per cycle: 2 fit on the device tier, 1 on host, 3 go to disk
constexpr int kCycles = 1000;
constexpr int kWarmup = 100;

std::uint64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::uint64_t open_fds() {
  std::uint64_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

struct DirUsage {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

DirUsage dir_usage(const std::string& dir) {
  DirUsage u;
  if (dir.empty() || !fs::exists(dir)) return u;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    ++u.files;
    if (e.is_regular_file()) u.bytes += e.file_size();
  }
  return u;
}

/// A word per 8 bytes that depends on the cycle, the buffer and the position: a stale or misplaced byte shows.
std::uint64_t pattern(int cycle, int buffer, std::uint64_t i) {
  std::uint64_t x = (static_cast<std::uint64_t>(cycle) << 40) ^ (static_cast<std::uint64_t>(buffer) << 32) ^ i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  return x ^ (x >> 29);
}

struct Sample {
  std::uint64_t rss, fds, spill_files, spill_bytes;
};

TEST(Soak, PersistSpillReloadFreeStaysFlat) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const fs::path root = fs::path("/tmp") / ("slab-soak-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const double start = MPI_Wtime();
  Sample warm{}, end{};
  std::uint64_t mismatches = 0, max_files_after_free = 0;
  std::string spill_dir;
  slab::MemoryStats stats;
  {
    slab::MemoryConfig cfg;
    cfg.device_limit = 2 * kBuffer;
    cfg.host_limit = 1 * kBuffer;
    cfg.spill_root = root.string();
    slab::MemoryManager memory(cfg);
    for (int cycle = 0; cycle < kCycles; ++cycle) {
      std::vector<slab::BufferPtr> buffers;
      for (int b = 0; b < kBuffers; ++b) {  // persist: each new buffer pushes older ones down a tier
        buffers.push_back(memory.allocate(kBuffer, "soak"));
        auto pin = buffers.back()->pin();
        auto* words = reinterpret_cast<std::uint64_t*>(pin.data());
        for (std::uint64_t i = 0; i < kBuffer / 8; ++i) words[i] = pattern(cycle, b, i);
      }
      memory.spill(UINT64_MAX);             // spill: whatever is still on the device tier
      for (int b = 0; b < kBuffers; ++b) {  // reload: every byte comes back
        auto pin = buffers[static_cast<std::size_t>(b)]->pin();
        const auto* words = reinterpret_cast<const std::uint64_t*>(pin.data());
        for (std::uint64_t i = 0; i < kBuffer / 8; ++i) mismatches += words[i] != pattern(cycle, b, i);
      }
      buffers.clear();  // free: spill files are deleted with their buffers
      spill_dir = memory.spill_dir();
      max_files_after_free = std::max(max_files_after_free, dir_usage(spill_dir).files);
      const DirUsage u = dir_usage(spill_dir);
      if (cycle == kWarmup - 1) warm = {rss_bytes(), open_fds(), u.files, u.bytes};
      if (cycle == kCycles - 1) end = {rss_bytes(), open_fds(), u.files, u.bytes};
    }
    stats = memory.stats();
  }
  const double seconds = MPI_Wtime() - start;
  const bool dir_removed = !spill_dir.empty() && !fs::exists(spill_dir);
  fs::remove_all(root);

  // The loop really spilled to disk and reloaded from it, every cycle.
  EXPECT_GE(stats.spilled_to_disk_count, static_cast<std::uint64_t>(kCycles) * 3);
  EXPECT_GE(stats.reloaded_from_disk_count, static_cast<std::uint64_t>(kCycles) * 3);
  EXPECT_EQ(mismatches, 0u);
  // Flat: no descriptor, no spill file and no byte on disk left after a free; RSS within 1 MiB (allocator
  // noise) between the end of the warm-up and the end.
  constexpr std::uint64_t kRssSlack = 1 << 20;
  EXPECT_EQ(end.fds, warm.fds);
  EXPECT_EQ(max_files_after_free, 0u);
  EXPECT_EQ(end.spill_bytes, 0u);
  if (!kAddressSanitizer)  // ASan's quarantine holds freed memory (256 MiB), so RSS says nothing there
    EXPECT_LE(end.rss, warm.rss + kRssSlack) << "RSS grew from " << warm.rss << " to " << end.rss << " bytes";
  EXPECT_TRUE(dir_removed) << spill_dir << " is still there after the manager was destroyed";

  // Every rank's figures, worst case on rank 0.
  std::int64_t mine[3] = {static_cast<std::int64_t>(end.rss) - static_cast<std::int64_t>(warm.rss),
                          static_cast<std::int64_t>(end.fds) - static_cast<std::int64_t>(warm.fds),
                          static_cast<std::int64_t>(max_files_after_free)};
  std::int64_t worst[3] = {0, 0, 0};
  MPI_Reduce(mine, worst, 3, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  int ok = !::testing::Test::HasFailure(), all_ok = 0;
  MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const std::string detail =
        std::to_string(kCycles) + " cycles x " + std::to_string(kBuffers) + " buffers of 32 KiB in " +
        std::to_string(seconds).substr(0, 4) + " s; " + std::to_string(stats.spilled_to_disk_count) +
        " spills to disk on rank 0; worst rank from cycle 100 to 1000: RSS " + std::to_string(worst[0] / 1024) +
        " KiB, open fds " + std::to_string(worst[1]) + ", spill files after free " + std::to_string(worst[2]) +
        ", spill dir removed at the end";
    slab::testing::record_reliability("soak", "persist/spill/reload/free x1000, 32 KiB buffers, 64 KiB device limit",
                                      "RSS, fds and spill dir flat; every byte reloaded", all_ok == 1, detail, size);
  }
}

}  // namespace
