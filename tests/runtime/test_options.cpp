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
  EXPECT_TRUE(o.device_memory);
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
