// Bad input matrix, memory settings: a memory limit below one chunk (test_array_bad_input.cpp), a spill
// directory that fills up (the --disk-limit cap), a spill root that cannot be created.
#include <cstdint>

#include "bad_input.hpp"
#include "slab/array/array.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace {

using badinput::expect_error;

// An engine whose memory spills straight to disk (no host tier) under a cap of `disk_limit` bytes.
struct CappedEngine {
  CappedEngine(std::uint64_t device_limit, std::uint64_t disk_limit, std::string spill_root = "/tmp")
      : tracer(MPI_COMM_WORLD),
        comm(MPI_COMM_WORLD, &tracer),
        memory(slab::MemoryConfig{device_limit, 0, disk_limit, std::move(spill_root), false, nullptr, &tracer}),
        queue(memory, comm, tracer) {}
  slab::Tracer tracer;
  slab::Comm comm;
  slab::MemoryManager memory;
  slab::TaskQueue queue;
};

TEST(BadInputMemory, SpillDirectoryFull) {
  // 16 chunks of 64 KiB per rank under a 256 KiB device limit: 768 KiB must spill, the cap is 256 KiB.
  CappedEngine e(256u << 10, 256u << 10);
  auto a = slab::Array<double>::from_function(
      e.queue, slab::Shape{16 * 128 * e.comm.size(), 64}, slab::Split::rows,
      [](std::int64_t i, std::int64_t j) { return double(i + j); }, 128);
  expect_error(e.comm, "OutOfMemory",
               "cannot spill 'task output' (64 KiB) to disk: spill directory cap of 256 KiB reached (256 KiB already "
               "spilled); raise --disk-limit or --memory-limit",
               [&] { a.persist(); });
}

TEST(BadInputMemory, SpillRootCannotBeCreated) {
  // /proc refuses new folders, even to root.
  CappedEngine e(1u << 20, UINT64_MAX, "/proc/slab-spill");
  expect_error(e.comm, "IoError",
               "cannot create the spill root '/proc/slab-spill': No such file or directory; set --spill-dir "
               "(SLAB_SPILL_DIR) to a writable folder",
               [&] { e.memory.check_spill_dir(); });
}

}  // namespace
