#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "slab/core/error.hpp"
#include "slab/runtime/runtime.hpp"
#include "world.hpp"

namespace {
using slab::testing::world_rank;
using slab::testing::world_size;
}  // namespace

TEST(Runtime, DescribesRanksAndLocalRanks) {
  slab::Runtime rt(slab::RuntimeOptions{});
  EXPECT_EQ(rt.rank(), world_rank());
  EXPECT_EQ(rt.size(), world_size());
  // All test ranks run on this one node.
  EXPECT_EQ(rt.local_size(), world_size());
  EXPECT_EQ(rt.local_rank(), world_rank());
  EXPECT_FALSE(rt.hostname().empty());
  EXPECT_NE(rt.versions().find("HDF5"), std::string::npos) << rt.versions();
  if (rt.device().id < 0) {
    EXPECT_EQ(rt.device_comm_path(), slab::DeviceCommPath::host);
    EXPECT_GT(rt.device().total_memory, 0u);
  }
}

TEST(Runtime, ResolvesMemoryLimits) {
  slab::RuntimeOptions o;
  o.device_memory_limit = slab::parse_byte_limit("64MiB", "x");
  o.host_memory_limit = slab::parse_byte_limit("0.25", "x");
  slab::Runtime rt(o);
  EXPECT_EQ(rt.device_memory_limit(), 64u << 20);
  EXPECT_GT(rt.host_memory_limit(), 0u);
  EXPECT_LT(rt.host_memory_limit(), rt.device().id < 0 ? rt.device().total_memory : UINT64_MAX);
}

TEST(Runtime, ConsumesItsFlagsAndLeavesTheRest) {
  const char* args[] = {"prog", "--memory-limit", "2GiB", "--rows", "10", "--spill-dir=/tmp", "--quiet", "x", nullptr};
  char* argv_storage[9];
  for (int i = 0; i < 9; ++i) argv_storage[i] = const_cast<char*>(args[i]);
  int argc = 8;
  char** argv = argv_storage;
  slab::Runtime rt(argc, argv);
  ASSERT_EQ(argc, 4);
  EXPECT_STREQ(argv[1], "--rows");
  EXPECT_STREQ(argv[2], "10");
  EXPECT_STREQ(argv[3], "x");
  EXPECT_EQ(rt.device_memory_limit(), 2ull << 30);
  EXPECT_TRUE(rt.options().quiet);
  EXPECT_EQ(rt.spill_root(), "/tmp");
}

TEST(Runtime, UnwritableSpillDirFailsOnEveryRank) {
  // Root ignores permission bits, so use a path below a regular file. Only the last rank gets the bad path:
  // every rank must still throw, with the same message.
  const std::string file = "/tmp/slab-test-notadir-" + std::to_string(getpid());
  std::ofstream(file) << "x";
  slab::RuntimeOptions o;
  if (world_rank() == world_size() - 1) o.spill_dir = file + "/sub";
  std::string message;
  try {
    slab::Runtime rt(o);
  } catch (const slab::InvalidArgument& e) {
    message = e.message();
  }
  std::filesystem::remove(file);
  EXPECT_NE(message.find("--spill-dir"), std::string::npos) << message;
  EXPECT_NE(message.find("is not a directory"), std::string::npos) << message;
}

TEST(Runtime, WritesOneTraceForAllRanks) {
  const std::string path = "/tmp/slab-test-trace-" + std::to_string(getppid()) + ".json";
  {
    slab::RuntimeOptions o;
    o.trace_file = path;
    slab::Runtime rt(o);
    rt.tracer().record("work", slab::TraceKind::compute, rt.tracer().now(), 0.001, 0);
    { slab::Tracer::Scope s(rt.tracer(), "send", slab::TraceKind::comm, 128); }
    rt.tracer().sample_memory(1, 2, 3);
    rt.finish();
  }
  if (world_rank() == 0) {
    std::ifstream in(path);
    auto j = nlohmann::json::parse(in);
    int complete = 0;
    std::set<int> pids;
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] == "X") {
        ++complete;
        pids.insert(e["pid"].get<int>());
      }
    }
    EXPECT_EQ(complete, 2 * world_size());
    EXPECT_EQ(static_cast<int>(pids.size()), world_size());
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    std::filesystem::remove(path);
  }
}
