// Frames in HDF5 on GPU memory: read_hdf5 lands each column in device memory through page-locked staging and
// write_hdf5 sends it back the same way; to_array casts on the device. Each against the host engine's result,
// bitwise, with no host fallback.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/core/version.hpp"
#include "slab/engine/engine.hpp"
#include "slab/frame/from_arrays.hpp"
#include "slab/frame/ops.hpp"
#include "slab/io/frame_io.hpp"
#include "slab/runtime/execution_context.hpp"

namespace {

namespace sf = slab::frame;

constexpr const char* kNoDevice = "no CUDA device (or a build without CUDA): the device path is not run here";

/// Rows [r n / p, (r + 1) n / p) of n: every column type, nulls by mask, NaN and -0.0, int64 extremes.
sf::LocalTable rows_of(std::int64_t n, int r, int p) {
  const std::int64_t b = n * r / p, e = n * (r + 1) / p;
  std::vector<std::int64_t> i64, ts;
  std::vector<double> f;
  std::vector<std::uint8_t> flags, iv, bv, sv;
  std::vector<std::string> s;
  const char* words[] = {"delta", "alpha", "charlie", "bravo"};
  for (std::int64_t g = b; g < e; ++g) {
    i64.push_back(g % 97 == 1 ? std::numeric_limits<std::int64_t>::min() : g * 7 - 5000);
    iv.push_back(g % 5 != 2);
    f.push_back(g % 11 == 4 ? std::numeric_limits<double>::quiet_NaN() : g % 13 == 6 ? -0.0 : g * 0.125 - 3.0);
    flags.push_back(static_cast<std::uint8_t>(g % 3 == 0));
    bv.push_back(g % 6 != 5);
    ts.push_back(1000000000000000000LL + g * 1000);
    s.push_back(words[g % 4]);
    sv.push_back(g % 7 != 3);
  }
  sf::LocalTable t;
  t.add(sf::LocalColumn::int64("i", i64, iv));
  t.add(sf::LocalColumn::float64("f", f));
  t.add(sf::LocalColumn::boolean("b", flags, bv));
  t.add(sf::LocalColumn::timestamp("t", ts));
  t.add(sf::LocalColumn::string("s", s, sv));
  return t;
}

/// Both tables' rows, value for value (floats bitwise; nulls where either has one).
void expect_same_rows(const sf::LocalTable& got, const sf::LocalTable& want, const std::string& what) {
  ASSERT_EQ(got.names(), want.names()) << what;
  ASSERT_EQ(got.nrows(), want.nrows()) << what;
  for (std::size_t c = 0; c < got.ncols(); ++c) {
    const auto &x = got.columns[c], &y = want.columns[c];
    for (std::int64_t r = 0; r < got.nrows(); ++r) {
      const auto u = static_cast<std::size_t>(r);
      ASSERT_EQ(x.is_null(u), y.is_null(u)) << what << " " << x.name << " row " << r;
      if (x.is_null(u)) continue;
      if (x.type == slab::ElementType::float64)
        ASSERT_EQ(std::memcmp(&x.floats[u], &y.floats[u], sizeof(double)), 0) << what << " " << x.name << " " << r;
      else if (x.type == slab::ElementType::string)
        ASSERT_EQ(x.strings[u], y.strings[u]) << what << " " << x.name << " row " << r;
      else if (x.type == slab::ElementType::boolean)
        ASSERT_EQ(x.bools[u], y.bools[u]) << what << " " << x.name << " row " << r;
      else
        ASSERT_EQ(x.ints[u], y.ints[u]) << what << " " << x.name << " row " << r;
    }
  }
}

}  // namespace

// 200,003 rows: under a 512 KiB host limit each column of a rank's partitions goes in several 64 KiB slabs.
TEST(GpuFrames, Hdf5ReadsWritesAndToArrayOnGpuMemoryAreTheHosts) {
  slab::EngineOptions host_options;
  host_options.device_memory = false;
  host_options.spill_dir = "/tmp";
  slab::EngineOptions gpu_options = host_options;
  gpu_options.device_memory = true;
  gpu_options.device_memory_limit.bytes = 256ull << 20;
  gpu_options.host_memory_limit.bytes = 512ull << 10;
  slab::Engine gpu(gpu_options);
  if (!slab::built_with_cuda || gpu.execution().place() != slab::ExecutionPlace::cuda) GTEST_SKIP() << kNoDevice;
  slab::Engine host(host_options);
  std::int64_t pid = getpid();
  host.comm().bcast(std::span<std::int64_t>(&pid, 1), 0);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("slab-gpu-frames-" + std::to_string(pid) + ".h5")).string();
  const std::int64_t n = 200003;
  const int r = host.comm().rank(), p = host.comm().size();
  const sf::Frame written = sf::Frame::from_local_table(host, rows_of(n, r, p), 30000);
  slab::io::write_hdf5(written, file, "/host");
  const sf::LocalTable want = slab::io::read_hdf5(host, file, "/host").gather_all();

  const sf::Frame on_gpu = slab::io::read_hdf5(gpu, file, "/host", 40000);
  expect_same_rows(on_gpu.gather_all(), want, "read onto the GPU");
  slab::io::write_hdf5(on_gpu, file, "/gpu");
  expect_same_rows(slab::io::read_hdf5(host, file, "/gpu").gather_all(), want, "written from the GPU");

  for (const char* c : {"i", "f", "b", "t"}) {
    const std::vector<double> a = sf::to_array<double>(on_gpu, c, 7777).gather_all();
    const std::vector<double> b = sf::to_array<double>(slab::io::read_hdf5(host, file, "/host"), c, 7777).gather_all();
    ASSERT_EQ(a.size(), b.size()) << c;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << "to_array<double> of " << c;
  }
  EXPECT_EQ(sf::to_array<std::int64_t>(on_gpu, "t").gather_all(),
            sf::to_array<std::int64_t>(slab::io::read_hdf5(host, file, "/host"), "t").gather_all());
  EXPECT_THROW((void)sf::to_array<std::int64_t>(on_gpu, "i").gather_all(), slab::TypeError);
  EXPECT_EQ(gpu.tracer().fallbacks().count("to_array"), 0u);
  EXPECT_EQ(gpu.tracer().fallbacks().size(), 0u) << "a host fallback on the GPU";
  host.comm().barrier();
  if (r == 0) std::filesystem::remove(file);
}
