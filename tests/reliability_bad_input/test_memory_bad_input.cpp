// Bad input matrix, memory settings: a memory limit below one chunk (test_array_bad_input.cpp), a spill
// directory that fills up (the --disk-limit cap), a spill root that cannot be created.
#include <cstdint>

#include "bad_input.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace {

using badinput::expect_error;

// An engine whose memory spills straight to disk (no host tier) under a cap of `disk_limit` bytes.
slab::EngineOptions capped(std::uint64_t device_limit, std::uint64_t disk_limit) {
  slab::EngineOptions options = slab::testing::engine_options(device_limit, 0);
  options.disk_limit = disk_limit;
  return options;
}

TEST(BadInputMemory, SpillDirectoryFull) {
  // 16 chunks of 64 KiB per rank under a 256 KiB device limit: 768 KiB must spill, the cap is 256 KiB.
  slab::Engine e(capped(256u << 10, 256u << 10));
  auto a = slab::Array<double>::from_function(
      e, slab::Shape{16 * 128 * e.comm().size(), 64}, slab::Split::rows,
      [](std::int64_t i, std::int64_t j) { return double(i + j); }, 128);
  expect_error(e.comm(), "OutOfMemory",
               "cannot spill 'task output' (64 KiB) to disk: spill directory cap of 256 KiB reached (256 KiB already "
               "spilled); raise --disk-limit or --memory-limit",
               [&] { a.persist(); });
}

TEST(BadInputMemory, SpillRootCannotBeCreated) {
  // /proc refuses new folders, even to root. (An Engine checks its spill root before it makes a memory manager;
  // this is the memory layer's own check.)
  slab::Comm comm(MPI_COMM_WORLD);
  slab::MemoryManager memory(slab::MemoryConfig{1u << 20, 0, UINT64_MAX, "/proc/slab-spill", nullptr, nullptr});
  expect_error(comm, "IoError",
               "cannot create the spill root '/proc/slab-spill': No such file or directory; set --spill-dir "
               "(SLAB_SPILL_DIR) to a writable folder",
               [&] { memory.check_spill_dir(); });
}

}  // namespace
