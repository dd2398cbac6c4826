// Reservations (slab/memory/reservation.hpp): reserved bytes count against the device limit like resident
// buffers, make unpinned buffers spill, are never spilled, turn into buffers without new room, and show in
// the tracer by purpose. Per-rank checks with a private spill root, as test_memory.cpp.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/trace/tracer.hpp"

namespace fs = std::filesystem;
using slab::MemoryConfig;
using slab::MemoryManager;
using slab::Reservation;
using slab::Tier;

namespace {

constexpr std::uint64_t B = 64 * 1024;

class Reservations : public ::testing::Test {
 protected:
  void SetUp() override {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    root_ = fs::path("/tmp") / ("slab-test-reservation-" + std::to_string(::getpid()) + "-r" + std::to_string(rank) +
                                "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  MemoryConfig config(std::uint64_t device_buffers, std::uint64_t host_buffers, slab::Tracer* tracer = nullptr) const {
    MemoryConfig c;
    c.device_limit = device_buffers * B;
    c.host_limit = host_buffers * B;
    c.spill_root = root_.string();
    c.tracer = tracer;
    c.execution = &execution_;  // a host context of the test's own: its staging pool's counts start at 0
    return c;
  }

  fs::path root_;
  slab::ExecutionContext execution_;
};

TEST_F(Reservations, CountAgainstTheDeviceLimitAndMakeOthersSpill) {
  MemoryManager m(config(4, 8));
  auto a = m.allocate(B, "a");
  auto b = m.allocate(B, "b");
  auto c = m.allocate(B, "c");
  Reservation r = m.reserve("state", 2 * B);
  EXPECT_EQ(r.size(), 2 * B);
  EXPECT_EQ(r.purpose(), "state");
  const auto s = m.stats();
  EXPECT_EQ(s.reserved_bytes, 2 * B);
  EXPECT_EQ(s.device.current, 4 * B);  // two buffers resident plus the reservation
  EXPECT_LE(s.device.high_water, 4 * B);
  EXPECT_EQ(s.spilled_to_host_count, 1u);  // the least recently used buffer made room
  EXPECT_EQ(a->tier(), Tier::host);
  EXPECT_EQ(c->tier(), Tier::device);
  EXPECT_EQ(s.reserved_peak_by_purpose.at("state"), 2 * B);
  // Reserved bytes are not spillable: allocating two more buffers' worth spills buffers, not the reservation.
  auto d = m.allocate(2 * B, "d");
  EXPECT_EQ(m.stats().reserved_bytes, 2 * B);
  EXPECT_EQ(b->tier(), Tier::host);
  EXPECT_EQ(c->tier(), Tier::host);
  r.release();
  EXPECT_EQ(m.stats().reserved_bytes, 0u);
  EXPECT_EQ(m.stats().device.current, 2 * B);
}

TEST_F(Reservations, RefuseWhatPinnedAndReservedBytesLeaveNoRoomFor) {
  MemoryManager m(config(4, 8));
  auto a = m.allocate(2 * B, "a");
  auto pin = a->pin();
  Reservation r = m.reserve("first", B);
  auto spillable = m.allocate(B, "spillable");
  EXPECT_FALSE(m.try_reserve("second", 2 * B).has_value());
  EXPECT_EQ(spillable->tier(), Tier::device);  // a refused try spills nothing
  try {
    (void)m.reserve("second", 2 * B);
    ADD_FAILURE() << "reserve beyond the pinned and reserved bytes did not throw";
  } catch (const slab::OutOfMemory& e) {
    EXPECT_NE(e.message().find("cannot reserve 128 KiB for 'second'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("128 KiB pinned by running tasks, 64 KiB reserved (64 KiB for 'first')"),
              std::string::npos)
        << e.message();
  }
  auto ok = m.try_reserve("second", B);  // room for one buffer's worth: the unpinned one spills
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(spillable->tier(), Tier::host);
  EXPECT_EQ(m.budget(1), 0u);
  EXPECT_FALSE(r.try_grow(1));
}

TEST_F(Reservations, BudgetIsWhatIsNeitherPinnedNorReserved) {
  MemoryManager m(config(8, 8));
  EXPECT_EQ(m.budget(8), B);
  EXPECT_EQ(m.budget(0), 8 * B);  // treated as one
  auto a = m.allocate(2 * B, "a");
  EXPECT_EQ(m.budget(1), 8 * B);  // an unpinned buffer can spill
  auto pin = a->pin();
  Reservation r = m.reserve_budget("half", 2, B);
  EXPECT_EQ(r.size(), 3 * B);  // (8 - 2 pinned) / 2
  EXPECT_EQ(m.budget(1), 3 * B);
  EXPECT_THROW((void)m.reserve_budget("too much", 1, 4 * B), slab::OutOfMemory);
}

TEST_F(Reservations, GrowShrinkMoveAndAllocateWithoutNewRoom) {
  MemoryManager m(config(4, 8));
  Reservation r = m.reserve("grow", B);
  EXPECT_TRUE(r.try_grow(2 * B));
  EXPECT_EQ(r.size(), 3 * B);
  EXPECT_FALSE(r.try_grow(2 * B));
  EXPECT_EQ(r.size(), 3 * B);
  r.shrink(B);
  EXPECT_EQ(m.stats().reserved_bytes, 2 * B);
  Reservation moved = std::move(r);
  EXPECT_EQ(r.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from reservation is empty
  EXPECT_EQ(moved.size(), 2 * B);
  const auto before = m.stats();
  auto buf = moved.allocate(B, "from reservation");
  const auto after = m.stats();
  EXPECT_EQ(after.device.current, before.device.current);  // the bytes changed hands
  EXPECT_EQ(after.reserved_bytes, B);
  EXPECT_EQ(after.spilled_to_host_count, before.spilled_to_host_count);
  EXPECT_EQ(buf->tier(), Tier::device);
  EXPECT_THROW((void)moved.allocate(2 * B), slab::OutOfMemory);
  buf.reset();
  moved = Reservation();
  EXPECT_EQ(m.stats().reserved_bytes, 0u);
  EXPECT_EQ(m.stats().device.current, 0u);
}

// A host reservation (the task queue's staging copies) counts in the host tier as spilled buffers do: host buffers
// go to disk to make room for it, device buffers spill to disk while it fills the host tier, and what it cannot
// have is an OutOfMemory naming the purpose and the host limit, or a false try_grow.
TEST_F(Reservations, OnTheHostTierSpillHostBuffersToDisk) {
  MemoryManager m(config(2, 3));
  auto a = m.allocate(B, "a");
  auto b = m.allocate(B, "b");
  for (auto* buf : {&a, &b}) {
    slab::Pin p = (*buf)->pin();
    for (std::uint64_t i = 0; i < B; ++i) p.data()[i] = static_cast<std::byte>((i * 7 + (buf == &a ? 1 : 2)) & 0xff);
  }
  EXPECT_EQ(m.spill(2 * B), 2 * B);  // both to the host tier
  ASSERT_EQ(a->tier(), Tier::host);
  Reservation r = m.reserve_host("host staging", 2 * B);
  EXPECT_EQ(r.tier(), Tier::host);
  auto s = m.stats();
  EXPECT_EQ(s.host_reserved_bytes, 2 * B);
  EXPECT_EQ(s.reserved_bytes, 0u);   // nothing of the device tier
  EXPECT_EQ(s.host.current, 3 * B);  // one buffer left on the host, the other on disk
  EXPECT_LE(s.host.high_water, 3 * B);
  EXPECT_EQ(s.spilled_to_disk_count, 1u);
  EXPECT_EQ(a->tier(), Tier::disk);
  EXPECT_EQ(s.reserved_peak_by_purpose.at("host staging"), 2 * B);
  // A device buffer spilled now goes to disk: the host tier is full.
  auto c = m.allocate(2 * B, "c");
  (void)m.spill(2 * B);
  EXPECT_EQ(c->tier(), Tier::disk);
  EXPECT_LE(m.stats().host.high_water, 3 * B);
  // More than the host limit leaves: refused, nothing held, and the bytes of the spilled buffers are intact.
  EXPECT_FALSE(r.try_grow(2 * B));
  EXPECT_EQ(r.size(), 2 * B);
  try {
    (void)m.reserve_host("host staging", 2 * B);
    ADD_FAILURE() << "a host reservation past the host limit was granted";
  } catch (const slab::OutOfMemory& e) {
    EXPECT_NE(e.message().find("'host staging'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("--host-memory-limit"), std::string::npos) << e.message();
  }
  EXPECT_THROW((void)r.allocate(B, "x"), slab::InvalidArgument);  // buffers live on the device tier
  r.release();
  EXPECT_EQ(m.stats().host_reserved_bytes, 0u);
  EXPECT_EQ(m.stats().host.current, 0u);  // b went to disk too, making room for c before c went there
  for (auto* buf : {&a, &b}) {
    slab::Pin p = (*buf)->pin();
    for (std::uint64_t i = 0; i < B; ++i)
      ASSERT_EQ(p.data()[i], static_cast<std::byte>((i * 7 + (buf == &a ? 1 : 2)) & 0xff)) << i;
  }
}

// The staging pool (MemoryManager::staging_block) keeps a block's memory by power-of-two size class for the next
// request of that class, up to an eighth of the host limit, and frees what goes back past that.
TEST_F(Reservations, StagingBlocksReuseTheirSizeClassUpToTheKeepLimit) {
  MemoryManager m(config(4, 8));  // host limit 512 KiB: keeps at most 64 KiB
  std::byte* first = nullptr;
  {
    slab::StagingBlock a = m.staging_block(5000);
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(a.size(), 5000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::byte{7};  // all of it is writable
    first = a.data();
  }
  auto s = m.stats().staging;
  EXPECT_FALSE(s.pinned);  // host memory: the device tier is not GPU memory
  EXPECT_EQ(s.blocks, 1u);
  EXPECT_EQ(s.reused, 0u);
  EXPECT_EQ(s.kept_bytes, 8192u);  // its size class
  {
    slab::StagingBlock b = m.staging_block(6000);  // the same class: the kept memory
    EXPECT_EQ(b.data(), first);
    slab::StagingBlock c = m.staging_block(9000);  // the next class: new memory
    EXPECT_NE(c.data(), first);
    slab::StagingBlock moved = std::move(c);
    EXPECT_EQ(c.data(), nullptr);
    EXPECT_EQ(moved.size(), 9000u);
  }
  s = m.stats().staging;
  EXPECT_EQ(s.blocks, 3u);
  EXPECT_EQ(s.reused, 1u);
  EXPECT_EQ(s.kept_bytes, 8192u + 16384u);
  { slab::StagingBlock big1 = m.staging_block(64 * 1024), big2 = m.staging_block(64 * 1024); }
  s = m.stats().staging;  // 24 KiB kept, so one 64 KiB block more would pass 64 KiB: both are freed
  EXPECT_EQ(s.kept_bytes, 8192u + 16384u);
  EXPECT_EQ(s.allocated_bytes, s.kept_bytes);
  const slab::StagingBlock small = m.staging_block(100);  // the smallest class, 4 KiB: new memory
  EXPECT_EQ(m.stats().staging.allocated_bytes, s.kept_bytes + 4096u);
}

TEST_F(Reservations, AStagingBlockMayOutliveItsManager) {
  slab::StagingBlock outlives;
  {
    MemoryManager m(config(4, 8));
    outlives = m.staging_block(100);
  }
  outlives.data()[99] = std::byte{1};  // the pool lives while one of its blocks does
  outlives.reset();
  EXPECT_EQ(outlives.data(), nullptr);
}

TEST_F(Reservations, OutliveTheirManagerSafely) {
  Reservation r;
  {
    MemoryManager m(config(4, 4));
    r = m.reserve("late", B);
  }
  EXPECT_FALSE(r.try_grow(B));
  r.release();  // nothing to give back to: must not crash
  EXPECT_EQ(r.size(), 0u);
}

TEST_F(Reservations, ShowInTheTracerByPurpose) {
  slab::Tracer tracer(MPI_COMM_SELF);
  MemoryManager m(config(8, 8, &tracer));
  {
    Reservation a = m.reserve("groupby partial state", 2 * B);
    Reservation b = m.reserve("merge broadcast side", B);
    ASSERT_TRUE(a.try_grow(B));
  }
  const auto& peaks = tracer.reservation_peaks();
  ASSERT_EQ(peaks.size(), 2u);
  EXPECT_EQ(peaks.at("groupby partial state"), 3 * B);
  EXPECT_EQ(peaks.at("merge broadcast side"), B);
  const auto& samples = tracer.reservation_samples();
  ASSERT_FALSE(samples.empty());
  EXPECT_EQ(samples.back().bytes, 0u);  // everything released at the end
  EXPECT_GE(tracer.memory_peak().device, 4 * B);  // reservations are device usage
}

}  // namespace
