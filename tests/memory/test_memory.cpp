// Per-rank checks of the memory layer: every rank runs the same independent checks with its own spill
// root, so the suite means the same at 1, 2, 3 and 4 ranks (and no check precedes a collective).
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/trace/tracer.hpp"

namespace fs = std::filesystem;
using slab::BufferPtr;
using slab::MemoryConfig;
using slab::MemoryManager;
using slab::Tier;

namespace {

constexpr std::uint64_t B = 64 * 1024;  // one test buffer

class Memory : public ::testing::Test {
 protected:
  void SetUp() override {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    root_ = fs::path("/tmp") / ("slab-test-memory-" + std::to_string(::getpid()) + "-r" + std::to_string(rank) + "-" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  MemoryConfig config(std::uint64_t device_buffers, std::uint64_t host_buffers) const {
    MemoryConfig c;
    c.device_limit = device_buffers * B;
    c.host_limit = host_buffers * B;
    c.spill_root = root_.string();
    return c;
  }

  fs::path root_;
};

void fill(const BufferPtr& b, std::uint64_t seed) {
  auto pin = b->pin();
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < pin.size(); ++i) pin.data()[i] = static_cast<std::byte>(rng() >> 56);
}

bool matches(const BufferPtr& b, std::uint64_t seed) {
  auto pin = b->pin();
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < pin.size(); ++i) {
    if (pin.data()[i] != static_cast<std::byte>(rng() >> 56)) return false;
  }
  return true;
}

std::vector<fs::path> files_in(const std::string& dir) {
  std::vector<fs::path> out;
  if (dir.empty() || !fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

// Tier totals equal the live buffers, and counts match, at any moment.
void expect_accounting(const MemoryManager& m, const std::vector<BufferPtr>& live) {
  const auto s = m.stats();
  std::uint64_t bytes[3] = {0, 0, 0};
  std::uint64_t count[3] = {0, 0, 0};
  std::uint64_t pinned = 0;
  for (const auto& b : live) {
    if (!b) continue;
    bytes[static_cast<int>(b->tier())] += b->size();
    count[static_cast<int>(b->tier())] += 1;
    if (b->is_pinned()) pinned += b->size();
  }
  EXPECT_EQ(s.device.current, bytes[0]);
  EXPECT_EQ(s.host.current, bytes[1]);
  EXPECT_EQ(s.disk.current, bytes[2]);
  EXPECT_EQ(s.device.buffers, count[0]);
  EXPECT_EQ(s.host.buffers, count[1]);
  EXPECT_EQ(s.disk.buffers, count[2]);
  EXPECT_EQ(s.pinned_bytes, pinned);
  EXPECT_EQ(files_in(m.spill_dir()).size(), count[2]);
  EXPECT_LE(s.device.high_water, m.config().device_limit);
  EXPECT_LE(s.host.high_water, m.config().host_limit);
}

}  // namespace

TEST_F(Memory, SpillAndReloadRoundTripThroughDisk) {
  MemoryManager m(config(4, 2));
  std::vector<BufferPtr> bufs;
  for (int i = 0; i < 20; ++i) {
    bufs.push_back(m.allocate(B, "chunk " + std::to_string(i)));
    fill(bufs.back(), 1000 + i);
    expect_accounting(m, bufs);
  }
  auto s = m.stats();
  EXPECT_GT(s.spilled_to_disk_count, 0u);
  EXPECT_GT(s.disk.current, 0u);
  EXPECT_EQ(s.device.high_water, 4 * B);
  EXPECT_EQ(s.allocated_count, 20u);
  EXPECT_EQ(s.allocated_bytes, 20 * B);
  // Read back in a shuffled order, several times: every byte identical.
  std::vector<int> order(20);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(7);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int i : order) EXPECT_TRUE(matches(bufs[i], 1000 + i)) << "buffer " << i << " round " << round;
    expect_accounting(m, bufs);
  }
  s = m.stats();
  EXPECT_GT(s.reloaded_from_disk_count, 0u);
  EXPECT_GT(s.reloaded_from_host_count, 0u);
  EXPECT_GT(s.spill_seconds, 0.0);
  EXPECT_GT(s.reload_seconds, 0.0);
  // Conservation: what went to disk either came back or is still there.
  EXPECT_EQ(s.spilled_to_disk_bytes - s.reloaded_from_disk_bytes, s.disk.current);
  // Every host-resident byte came from a device spill and left by reload or a disk spill.
  EXPECT_LE(s.device.high_water, 4 * B);
  EXPECT_LE(s.host.high_water, 2 * B);
}

TEST_F(Memory, OddSizesRoundTrip) {
  MemoryManager m(config(1, 0));  // host tier of 0: every spill goes device -> disk
  std::vector<std::uint64_t> sizes = {0, 1, 7, 31, 33, 1000, B - 3, B};
  std::vector<BufferPtr> bufs;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    bufs.push_back(m.allocate(sizes[i]));
    fill(bufs.back(), i);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_TRUE(matches(bufs[i], i)) << sizes[i];
    EXPECT_EQ(bufs[i]->size(), sizes[i]);
  }
  expect_accounting(m, bufs);
  EXPECT_EQ(m.stats().spilled_to_host_bytes, 0u);  // only the empty buffer fits a 0-byte host tier
}

TEST_F(Memory, LeastRecentlyUsedSpillsFirst) {
  MemoryManager m(config(3, 100));
  auto a = m.allocate(B, "a");
  auto b = m.allocate(B, "b");
  auto c = m.allocate(B, "c");
  a->touch();  // now b is the least recently used
  auto d = m.allocate(B, "d");
  EXPECT_EQ(b->tier(), Tier::host);
  EXPECT_EQ(a->tier(), Tier::device);
  EXPECT_EQ(c->tier(), Tier::device);
  EXPECT_EQ(d->tier(), Tier::device);
  { auto p = c->pin(); }  // pinning touches too: a is now the LRU
  auto e = m.allocate(B, "e");
  EXPECT_EQ(a->tier(), Tier::host);
  EXPECT_EQ(c->tier(), Tier::device);
  // Reloading b spills the LRU device buffer, d.
  { auto p = b->pin(); }
  EXPECT_EQ(b->tier(), Tier::device);
  EXPECT_EQ(d->tier(), Tier::host);
  expect_accounting(m, {a, b, c, d, e});
}

TEST_F(Memory, HostTierSpillsItsLeastRecentlyUsedToDisk) {
  MemoryManager m(config(1, 2));
  auto a = m.allocate(B, "a");
  auto b = m.allocate(B, "b");  // a -> host
  auto c = m.allocate(B, "c");  // b -> host
  auto d = m.allocate(B, "d");  // c -> host, a (host LRU) -> disk
  EXPECT_EQ(a->tier(), Tier::disk);
  EXPECT_EQ(b->tier(), Tier::host);
  EXPECT_EQ(c->tier(), Tier::host);
  EXPECT_EQ(d->tier(), Tier::device);
  expect_accounting(m, {a, b, c, d});
}

TEST_F(Memory, PinnedBuffersNeverSpill) {
  MemoryManager m(config(3, 1));
  auto keep = m.allocate(B, "keep");
  fill(keep, 99);
  auto pin = keep->pin();
  std::vector<BufferPtr> others;
  for (int i = 0; i < 12; ++i) {
    others.push_back(m.allocate(B));
    fill(others.back(), i);
    EXPECT_EQ(keep->tier(), Tier::device);
  }
  EXPECT_TRUE(keep->is_pinned());
  EXPECT_EQ(m.stats().pinned_bytes, B);
  // Nested pins: the buffer stays pinned until the last one goes.
  {
    auto inner = keep->pin();
    EXPECT_EQ(inner.data(), pin.data());
  }
  EXPECT_TRUE(keep->is_pinned());
  pin.reset();
  EXPECT_FALSE(keep->is_pinned());
  EXPECT_EQ(m.stats().pinned_bytes, 0u);
  EXPECT_TRUE(matches(keep, 99));
  for (int i = 0; i < 12; ++i) EXPECT_TRUE(matches(others[i], i));
}

TEST_F(Memory, EverythingPinnedIsOutOfMemory) {
  MemoryManager m(config(2, 10));
  auto a = m.allocate(B);
  auto b = m.allocate(B);
  auto pa = a->pin();
  auto pb = b->pin();
  try {
    auto c = m.allocate(B, "c");
    FAIL() << "expected OutOfMemory";
  } catch (const slab::OutOfMemory& e) {
    const std::string msg = e.message();
    EXPECT_NE(msg.find("cannot allocate 64 KiB for 'c'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit 128 KiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("128 KiB pinned"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--memory-limit"), std::string::npos) << msg;
  }
  expect_accounting(m, {a, b});
  pb.reset();
  EXPECT_NO_THROW(m.allocate(B));  // b can spill now
}

TEST_F(Memory, BufferLargerThanTheLimitIsAClearError) {
  MemoryManager m(config(2, 10));
  try {
    auto big = m.allocate(3 * B, "block 7");
    FAIL() << "expected OutOfMemory";
  } catch (const slab::OutOfMemory& e) {
    const std::string msg = e.message();
    EXPECT_NE(msg.find("192 KiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("smaller than one chunk"), std::string::npos) << msg;
    EXPECT_NE(msg.find("block 7"), std::string::npos) << msg;
  }
  EXPECT_EQ(m.stats().device.current, 0u);
  EXPECT_THROW(MemoryManager(config(0, 1)), slab::InvalidArgument);
}

TEST_F(Memory, CorruptSpillFileIsDetected) {
  MemoryManager m(config(1, 0));
  auto a = m.allocate(B, "victim");
  fill(a, 5);
  auto b = m.allocate(B);  // a -> disk
  ASSERT_EQ(a->tier(), Tier::disk);
  auto files = files_in(m.spill_dir());
  ASSERT_EQ(files.size(), 1u);
  {
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(32 + 1234);
    char c = 0;
    f.read(&c, 1);
    c ^= 0x10;
    f.seekp(32 + 1234);
    f.write(&c, 1);
  }
  try {
    auto p = a->pin();
    FAIL() << "expected IntegrityError";
  } catch (const slab::IntegrityError& e) {
    EXPECT_NE(e.message().find(files[0].string()), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("checksum"), std::string::npos) << e.message();
  }
  // Nothing was lost or leaked: a is still on disk, b untouched, accounting intact.
  EXPECT_EQ(a->tier(), Tier::disk);
  expect_accounting(m, {a, b});
  a.reset();  // its file goes with it (reload made room first, so b may be on disk now)
  expect_accounting(m, {b});
  EXPECT_EQ(files_in(m.spill_dir()).size(), b->tier() == Tier::disk ? 1u : 0u);
}

TEST_F(Memory, TruncatedSpillFileIsDetected) {
  MemoryManager m(config(1, 0));
  auto a = m.allocate(B, "victim");
  fill(a, 6);
  auto b = m.allocate(B);
  auto files = files_in(m.spill_dir());
  ASSERT_EQ(files.size(), 1u);
  fs::resize_file(files[0], 32 + B / 2);
  try {
    auto p = a->pin();
    FAIL() << "expected IntegrityError";
  } catch (const slab::IntegrityError& e) {
    EXPECT_NE(e.message().find(files[0].string()), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("truncated"), std::string::npos) << e.message();
  }
  EXPECT_EQ(a->tier(), Tier::disk);
  // A corrupt header is caught too.
  auto c = m.allocate(B);  // b -> disk
  auto bfile = files_in(m.spill_dir());
  ASSERT_EQ(bfile.size(), 2u);
  for (const auto& f : bfile) {
    if (f == files[0]) continue;
    std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
    s.seekp(0);
    s.write("XXXX", 4);
  }
  EXPECT_THROW((void)b->pin(), slab::IntegrityError);
}

TEST_F(Memory, DiskCapIsEnforced) {
  auto cfg = config(1, 0);
  cfg.disk_limit = 2 * B;
  MemoryManager m(cfg);
  auto a = m.allocate(B);
  auto b = m.allocate(B);  // a -> disk
  fill(b, 3);
  auto c = m.allocate(B);  // b -> disk (cap reached exactly)
  try {
    auto d = m.allocate(B);
    FAIL() << "expected OutOfMemory";
  } catch (const slab::OutOfMemory& e) {
    EXPECT_NE(e.message().find("spill directory cap of 128 KiB reached"), std::string::npos) << e.message();
  }
  EXPECT_EQ(c->tier(), Tier::device);  // the failed spill left c where it was
  expect_accounting(m, {a, b, c});
  c.reset();
  EXPECT_TRUE(matches(b, 3));
  EXPECT_LE(m.stats().disk.high_water, 2 * B);
}

TEST_F(Memory, UnwritableSpillRootNamesThePath) {
  const fs::path file = root_ / "a-regular-file";
  std::ofstream(file) << "x";
  auto cfg = config(1, 0);
  cfg.spill_root = (file / "spill").string();
  MemoryManager m(cfg);
  try {
    m.check_spill_dir();
    FAIL() << "expected IoError";
  } catch (const slab::IoError& e) {
    EXPECT_NE(e.message().find(cfg.spill_root), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("Not a directory"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("--spill-dir"), std::string::npos) << e.message();
  }
  // The same error when a spill needs the directory; the device buffer stays intact.
  auto a = m.allocate(B);
  fill(a, 1);
  EXPECT_THROW((void)m.allocate(B), slab::IoError);
  EXPECT_EQ(a->tier(), Tier::device);
  EXPECT_TRUE(matches(a, 1));
  expect_accounting(m, {a});
}

TEST_F(Memory, SpillDirectoryIsPrivateAndRemoved) {
  std::string dir;
  {
    MemoryManager m(config(1, 0));
    EXPECT_EQ(m.spill_dir(), "");
    m.check_spill_dir();
    dir = m.spill_dir();
    EXPECT_EQ(fs::path(dir).parent_path(), root_);
    // slab-spill-<host>-<pid>-XXXXXX
    const std::string name = fs::path(dir).filename().string();
    const std::string pid = "-" + std::to_string(::getpid()) + "-";
    EXPECT_EQ(name.rfind("slab-spill-", 0), 0u) << dir;
    EXPECT_TRUE(name.size() > pid.size() + 6 && name.compare(name.size() - 6 - pid.size(), pid.size(), pid) == 0)
        << dir;
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    std::vector<BufferPtr> bufs;
    for (int i = 0; i < 4; ++i) bufs.push_back(m.allocate(B));
    auto files = files_in(dir);
    EXPECT_EQ(files.size(), 3u);
    for (const auto& f : files) {
      ASSERT_EQ(::stat(f.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 07777, 0600u) << f;
      EXPECT_EQ(f.filename().string().rfind("spill-", 0), 0u) << f;
    }
    bufs[0].reset();  // a buffer that dies on disk deletes its file
    EXPECT_EQ(files_in(dir).size(), 2u);
    // Leave two buffers on disk: the manager's destructor removes them and the directory.
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(Memory, BuffersMayOutliveTheManager) {
  BufferPtr on_device, on_disk;
  std::string dir;
  {
    MemoryManager m(config(1, 0));
    on_disk = m.allocate(B);
    on_device = m.allocate(B);
    fill(on_device, 11);
    dir = m.spill_dir();
    EXPECT_EQ(on_disk->tier(), Tier::disk);
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(matches(on_device, 11));
  EXPECT_THROW((void)on_disk->pin(), slab::IoError);
  on_disk.reset();
  on_device.reset();
}

TEST_F(Memory, ExplicitSpillFreesDeviceBytes) {
  MemoryManager m(config(4, 4));
  std::vector<BufferPtr> bufs;
  for (int i = 0; i < 4; ++i) bufs.push_back(m.allocate(B));
  auto pin = bufs[0]->pin();
  EXPECT_EQ(m.spill(2 * B), 2 * B);
  EXPECT_EQ(m.stats().device.current, 2 * B);
  EXPECT_EQ(bufs[0]->tier(), Tier::device);
  EXPECT_EQ(m.spill(4 * B), B);  // everything unpinned; the pinned one stays
  EXPECT_EQ(m.stats().device.current, B);
  expect_accounting(m, bufs);
}

TEST_F(Memory, TracerSeesSpillsAndMemorySamples) {
  slab::Tracer tracer(MPI_COMM_SELF);
  auto cfg = config(1, 1);
  cfg.tracer = &tracer;
  MemoryManager m(cfg);
  auto a = m.allocate(B);
  auto b = m.allocate(B);  // a -> host
  auto c = m.allocate(B);  // b -> host, a -> disk
  { auto p = a->pin(); }   // a <- disk, c -> host, b -> disk
  std::uint64_t spill_events = 0, spill_bytes = 0;
  for (const auto& e : tracer.events()) {
    if (e.kind == slab::TraceKind::spill) {
      ++spill_events;
      spill_bytes += e.bytes;
    }
  }
  const auto s = m.stats();
  const std::uint64_t moves =
      s.spilled_to_host_count + s.spilled_to_disk_count + s.reloaded_from_host_count + s.reloaded_from_disk_count;
  EXPECT_EQ(spill_events, moves);
  EXPECT_EQ(spill_bytes, moves * B);
  EXPECT_GE(tracer.memory_samples().size(), moves);
  EXPECT_LE(tracer.memory_samples().back().device, B);
}
