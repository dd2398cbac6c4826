#include <gtest/gtest.h>
#include <stdlib.h>

#include "slab/core/error.hpp"
#include "slab/runtime/options.hpp"

namespace {
slab::RuntimeOptions parse(std::vector<std::string> args) {
  std::vector<char*> argv;
  std::string prog = "prog";
  argv.push_back(prog.data());
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(argv.size()) - 1;
  slab::RuntimeOptions o;
  o.consume_flags(argc, argv.data());
  return o;
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const slab::InvalidArgument& e) {
    return e.message();
  }
  return "";
}
}  // namespace

TEST(Options, ParsesEveryFlag) {
  auto o = parse({"--memory-limit", "1GiB", "--host-memory-limit=50%", "--disk-limit", "10GB", "--spill-dir",
                  "/scratch", "--trace", "t.json", "--log-level", "debug", "--verbose", "--quiet", "--device-memory"});
  EXPECT_EQ(o.device_memory_limit.resolve(0), 1ull << 30);
  EXPECT_EQ(o.host_memory_limit.resolve(1000), 500u);
  EXPECT_EQ(o.disk_limit, 10000000000ull);
  EXPECT_EQ(o.spill_dir, "/scratch");
  EXPECT_EQ(o.trace_file, "t.json");
  EXPECT_EQ(o.log_level, slab::LogLevel::debug);
  EXPECT_TRUE(o.verbose);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.device_memory, true);
}

// GPU memory is the default where a rank has a GPU (unset); --device-memory=off and SLAB_DEVICE_MEMORY=0 opt out.
TEST(Options, DeviceMemoryIsTheDefaultAndOptsOut) {
  EXPECT_FALSE(parse({}).device_memory.has_value());
  EXPECT_EQ(parse({"--device-memory=off"}).device_memory, false);
  EXPECT_EQ(parse({"--device-memory=1"}).device_memory, true);
  EXPECT_NE(error_of({"--device-memory=maybe"}).find("--device-memory: 'maybe' is not a boolean"), std::string::npos);
  setenv("SLAB_DEVICE_MEMORY", "0", 1);
  EXPECT_EQ(slab::RuntimeOptions::from_environment().device_memory, false);
  unsetenv("SLAB_DEVICE_MEMORY");
  EXPECT_FALSE(slab::RuntimeOptions::from_environment().device_memory.has_value());
}

TEST(Options, BadValuesNameTheFlag) {
  EXPECT_NE(error_of({"--memory-limit", "lots"}).find("--memory-limit"), std::string::npos);
  EXPECT_NE(error_of({"--memory-limit", "0"}).find("--memory-limit"), std::string::npos);
  EXPECT_NE(error_of({"--memory-limit"}).find("--memory-limit: a value is required"), std::string::npos);
  EXPECT_NE(error_of({"--log-level", "loud"}).find("--log-level"), std::string::npos);
  EXPECT_NE(error_of({"--disk-limit", "0.5"}).find("--disk-limit"), std::string::npos);
  EXPECT_NE(error_of({"--trace="}).find("--trace"), std::string::npos);
}

TEST(Options, EnvironmentIsReadAndNamed) {
  setenv("SLAB_MEMORY_LIMIT", "3MiB", 1);
  setenv("SLAB_VERBOSE", "1", 1);
  auto o = slab::RuntimeOptions::from_environment();
  EXPECT_EQ(o.device_memory_limit.resolve(0), 3u << 20);
  EXPECT_TRUE(o.verbose);
  setenv("SLAB_MEMORY_LIMIT", "3 parsecs", 1);
  try {
    slab::RuntimeOptions::from_environment();
    ADD_FAILURE() << "accepted a bad SLAB_MEMORY_LIMIT";
  } catch (const slab::InvalidArgument& e) {
    EXPECT_NE(e.message().find("SLAB_MEMORY_LIMIT"), std::string::npos);
  }
  unsetenv("SLAB_MEMORY_LIMIT");
  unsetenv("SLAB_VERBOSE");
}
