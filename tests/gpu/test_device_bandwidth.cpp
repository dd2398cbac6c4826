// What device buffers cost to move: host<->device copies and an allreduce on device pointers over the path
// the runtime chose (NCCL, or host staging where ranks share a GPU). Prints the figures (slab-info measures
// host buffers only); asserts only that the sums are right.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "memory/device_allocator.hpp"
#include "slab/comm/world.hpp"
#include "slab/core/version.hpp"
#include "slab/runtime/runtime.hpp"

namespace {

// Median over repeats of the slowest rank's seconds.
template <class Fn>
double timed(const slab::Comm& comm, int repeats, Fn fn) {
  std::vector<double> t;
  fn();  // warm-up: NCCL channels, pinned staging, page faults
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    fn();
    t.push_back(comm.allreduce(MPI_Wtime() - t0, slab::ReduceOp::max));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

TEST(Gpu, DeviceBufferBandwidth) {
  slab::Runtime rt(slab::RuntimeOptions{});
  if (!slab::built_with_cuda || rt.device().id < 0)
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the device path is not run here";
  slab::Comm comm = slab::make_world_comm(rt);
  const std::size_t n = std::size_t{8} << 20;  // 64 MiB of doubles per rank
  const std::size_t bytes = n * sizeof(double);
  std::vector<double> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<double>(i % 7) + comm.rank();
  void* stream = rt.stream_handle();
  const slab::ExecutionContext exec(slab::ExecutionPlace::cuda, rt.device().id, stream);
  auto* in = static_cast<double*>(slab::detail::device_alloc(bytes, stream));
  auto* out = static_cast<double*>(slab::detail::device_alloc(bytes, stream));

  const double h2d = timed(comm, 5, [&] { slab::copy(in, host.data(), bytes, exec); });
  std::vector<double> back(n);
  const double d2h = timed(comm, 5, [&] { slab::copy(back.data(), in, bytes, exec); });
  const double ar = timed(
      comm, 5, [&] { comm.allreduce(std::span<const double>(in, n), std::span<double>(out, n), slab::ReduceOp::sum); });
  slab::copy(back.data(), out, bytes, exec);
  const int p = comm.size();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += back[i] != p * static_cast<double>(i % 7) + p * (p - 1) / 2.0;
  EXPECT_EQ(wrong, 0u);
  slab::detail::device_free(in, stream);
  slab::detail::device_free(out, stream);

  if (comm.rank() == 0) {
    const double gb = static_cast<double>(bytes) / 1e9;
    std::printf(
        "device buffers, %d rank(s), comm path %s: host->device %.2f GB/s, device->host %.2f GB/s "
        "(pageable, 64 MiB); allreduce of 64 MiB %.3f ms = %.2f GB/s bus bandwidth\n",
        p, std::string(slab::to_string(rt.device_comm_path())).c_str(), gb / h2d, gb / d2h, ar * 1e3,
        p > 1 ? 2.0 * (p - 1) / p * gb / ar : gb / ar);
  }
}
