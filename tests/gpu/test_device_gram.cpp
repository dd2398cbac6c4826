// Linear algebra on device memory (cuBLAS dsyrk, cudaMemset, device->host copies) against a plain loop on
// the host, and the device comm path the runtime chooses for the ranks it was given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "slab/comm/world.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/engine/engine.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/linalg/gram.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/runtime.hpp"

namespace {

bool have_device(const slab::Runtime& rt) { return slab::built_with_cuda && rt.device().id >= 0; }
constexpr const char* kNoDevice = "no CUDA device (or a build without CUDA): the device path is not run here";

}  // namespace

TEST(Gpu, CommPathFollowsRanksPerDevice) {
  slab::Runtime rt(slab::RuntimeOptions{});
  if (!have_device(rt)) GTEST_SKIP() << kNoDevice;
  std::cout << "rank " << rt.rank() << ": device " << rt.device().id << " (" << rt.device().name << "), "
            << rt.local_size() << " rank(s) on this node, comm path " << slab::to_string(rt.device_comm_path()) << "\n";
  // One rank per GPU gets NCCL; ranks sharing a GPU must stage through the host (NCCL refuses two ranks on
  // one device). A machine with one GPU and two ranks is the second case.
  if (rt.local_size() == 1)
    EXPECT_EQ(rt.device_comm_path(), slab::DeviceCommPath::nccl);
  else
    EXPECT_NE(rt.device_comm_path(), slab::DeviceCommPath::host);
}

// X X^T of an n x m X written to HDF5, on device memory, against a plain loop on the host.
void check_gram_on_device(std::uint64_t n, std::uint64_t m) {
  slab::EngineOptions engine_options;
  engine_options.device_memory = true;
  engine_options.device_memory_limit.bytes = 64ull << 20;
  engine_options.host_memory_limit.bytes = 256ull << 20;
  slab::Engine engine(engine_options);
  if (!have_device(engine.runtime())) GTEST_SKIP() << kNoDevice;
  slab::Comm& comm = engine.comm();
  std::int64_t pid = getpid();
  comm.bcast(std::span<std::int64_t>(&pid, 1), 0);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("slab-gpu-gram-" + std::to_string(pid) + ".h5")).string();
  auto fill = [m](std::uint64_t r0, std::uint64_t nr, std::uint64_t c0, std::uint64_t nc, void* out) {
    auto* x = static_cast<double*>(out);
    for (std::uint64_t i = 0; i < nr; ++i)
      for (std::uint64_t j = 0; j < nc; ++j) x[i * nc + j] = slab::counter_uniform(2, (r0 + i) * m + c0 + j) - 0.5;
  };
  slab::io::write_generated(comm, file, "/X", slab::ElementType::float64, {n, m}, {n, 250}, n, 250, fill);

  slab::linalg::GramOptions options;
  options.block_cols = 128;  // several blocks per rank, the last one narrower
  slab::linalg::GramReport report;
  const auto x = slab::io::inspect(comm, file, "/X");
  const std::vector<double> y = slab::linalg::gram_xxt(engine, x, "", "", options, &report, true);
  EXPECT_EQ(report.blocks, (m + 127) / 128);
  EXPECT_GT(engine.memory().stats().device.high_water, 0u);

  if (comm.rank() == 0) {
    ASSERT_EQ(y.size(), n * n);
    std::vector<double> xs(n * m);
    fill(0, n, 0, m, xs.data());
    double worst = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      for (std::uint64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (std::uint64_t k = 0; k < m; ++k) ref += xs[i * m + k] * xs[j * m + k];
        worst = std::max(worst, std::fabs(y[i * n + j] - ref) / std::max(1.0, std::fabs(ref)));
        ASSERT_EQ(y[i * n + j], y[j * n + i]) << "Y is not exactly symmetric at " << i << "," << j;
      }
    EXPECT_LT(worst, 1e-12) << "largest relative difference from the host loop";
  }
  comm.barrier();
  if (comm.rank() == 0) std::remove(file.c_str());
}

TEST(Gpu, GramXxtOnDeviceMemoryMatchesHostLoop) { check_gram_on_device(300, 1000); }

// n past 2 x 1024: the device's dgemm runs over several of the Gram's upper tiles (linalg/gram_tiles.hpp).
TEST(Gpu, GramXxtOverSeveralTilesMatchesHostLoop) { check_gram_on_device(2100, 300); }
