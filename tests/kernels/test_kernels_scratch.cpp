// The kernels' scratch memory is the memory manager's (memory/kernel_scratch.hpp): what a composition asks of its
// ScratchAllocator is a device-tier buffer, counted against the limit and in the peak, making other buffers spill
// to make room, and an OutOfMemory naming its purpose and bytes where it cannot be had. Checked through the
// allocator directly and through a real composition (the sort permutation, whose documented scratch is 2 n words
// plus n indices) on the Reference backend, as the reference place runs it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "frame/kernels/sort_perm.hpp"
#include "kernel_test_util.hpp"
#include "memory/kernel_scratch.hpp"
#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/execution_context.hpp"

namespace {

namespace fs = std::filesystem;
using slab::MemoryConfig;
using slab::MemoryManager;
constexpr std::uint64_t KiB = 1024;

struct SpillRoot {
  fs::path path = fs::path("/tmp") / ("slab-test-kernel-scratch-" + std::to_string(::getpid()));
  SpillRoot() { fs::create_directories(path); }
  ~SpillRoot() { fs::remove_all(path); }
};

MemoryConfig config(const SpillRoot& root, std::uint64_t device, std::uint64_t host) {
  MemoryConfig c;
  c.device_limit = device;
  c.host_limit = host;
  c.spill_root = root.path.string();
  return c;
}

}  // namespace

TEST(KernelScratchAccounting, ScratchCountsAgainstTheLimitSpillsOthersAndNamesItselfWhenItCannotFit) {
  SpillRoot root;
  MemoryManager m(config(root, 256 * KiB, 1024 * KiB));
  slab::BufferPtr other = m.allocate(160 * KiB, "other buffer");
  {
    auto pin = other->pin();
    std::memset(pin.data(), 0x5a, pin.size());
  }
  {
    slab::detail::KernelScratch scratch(m, "groupby scratch");
    const slab::kernels::Exec e = scratch.exec(slab::ExecutionContext::host());
    void* p = e.scratch.allocate(e.scratch.state, 128 * KiB);
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, 128 * KiB);
    const auto s = m.stats();
    EXPECT_GE(s.device.current, 128 * KiB);  // counted in the device tier
    EXPECT_LE(s.device.high_water, 256 * KiB);
    EXPECT_EQ(s.spilled_to_host_count, 1u);  // 160 + 128 KiB > 256: the other buffer made room
    try {
      (void)e.scratch.allocate(e.scratch.state, 300 * KiB);
      ADD_FAILURE() << "300 KiB of scratch under a 256 KiB limit";
    } catch (const slab::OutOfMemory& err) {
      const std::string msg = err.message();
      EXPECT_NE(msg.find("'groupby scratch'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("300 KiB"), std::string::npos) << msg;
    }
    e.scratch.deallocate(e.scratch.state, p, 128 * KiB);
    EXPECT_LT(m.stats().device.current, 128 * KiB);  // given back
  }
  auto pin = other->pin();  // reloaded intact
  for (std::size_t i = 0; i < pin.size(); ++i) ASSERT_EQ(pin.data()[i], std::byte{0x5a}) << i;
}

TEST(KernelScratchAccounting, ASortsScratchIsInThePeak) {
  SpillRoot root;
  const std::int64_t n = 20000;
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>((i * 7919) % n);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  const std::uint64_t* words[] = {keys.data()};
  const std::uint64_t documented = 3 * static_cast<std::uint64_t>(n) * 8;  // 2 n words + n indices
  {
    MemoryManager m(config(root, 4096 * KiB, 4096 * KiB));
    slab::detail::KernelScratch scratch(m);
    slab::frame::kernels::SortKernels<slab::kernels::Reference>::permutation(
        scratch.exec(slab::ExecutionContext::host()), words, 1, nullptr, n, perm.data());
    const auto s = m.stats();
    EXPECT_GE(s.device.high_water, documented) << "the sort's scratch is not in the device peak";
    EXPECT_GE(s.allocated_bytes, documented);
    for (std::int64_t j = 1; j < n; ++j)
      ASSERT_LE(keys[static_cast<std::size_t>(perm[j - 1])], keys[static_cast<std::size_t>(perm[j])]) << j;
  }
  {  // a limit below the sort's scratch: OutOfMemory naming the purpose, nothing written past it
    MemoryManager m(config(root, documented / 2, 0));
    slab::detail::KernelScratch scratch(m);
    EXPECT_THROW(slab::frame::kernels::SortKernels<slab::kernels::Reference>::permutation(
                     scratch.exec(slab::ExecutionContext::host()), words, 1, nullptr, n, perm.data()),
                 slab::OutOfMemory);
  }
}
