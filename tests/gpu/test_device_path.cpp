// The device path of the engine: device-tier buffers (cudaMalloc), spilling them to host and back, and
// collectives on device pointers (NCCL with one GPU per rank, host staging where ranks share one).
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "memory/device_allocator.hpp"
#include "slab/comm/world.hpp"
#include "slab/core/version.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/runtime.hpp"

namespace {
bool no_device(const slab::Runtime& rt, std::string& why) {
  if (!slab::built_with_cuda) {
    why = "this build has no CUDA support (SLAB_ENABLE_CUDA=OFF or no toolkit)";
    return true;
  }
  if (rt.device().id < 0) {
    why = "no CUDA device on this machine: the CUDA path is compiled but not run here";
    return true;
  }
  return false;
}
/// The collectives' tests: this rank's runtime, its world communicator and a CUDA execution context on the rank's
/// device and stream; skipped with a message where there is no device.
class GpuComm : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (no_device(rt_, why)) GTEST_SKIP() << why;
    comm_.emplace(slab::make_world_comm(rt_));
    exec_.emplace(slab::ExecutionPlace::cuda, rt_.device().id, rt_.stream_handle());
  }
  slab::Runtime rt_{slab::RuntimeOptions{}};
  std::optional<slab::Comm> comm_;
  std::optional<slab::ExecutionContext> exec_;
};
}  // namespace

TEST(Gpu, SpillDeviceBuffersToHostAndBack) {
  slab::Runtime rt(slab::RuntimeOptions{});
  std::string why;
  if (no_device(rt, why)) GTEST_SKIP() << why;
  const std::size_t n = 1 << 20;
  const slab::ExecutionContext exec(slab::ExecutionPlace::cuda, rt.device().id, rt.stream_handle());
  slab::MemoryManager memory(
      {2 * n * sizeof(double), 8 * n * sizeof(double), UINT64_MAX, rt.spill_root(), &exec, nullptr});
  std::vector<double> host(n);
  std::iota(host.begin(), host.end(), 0.0);
  std::vector<slab::BufferPtr> buffers;
  for (int b = 0; b < 6; ++b) {
    buffers.push_back(memory.allocate(n * sizeof(double)));
    auto pin = buffers.back()->pin();
    for (auto& v : host) v += 1;
    slab::copy(pin.data(), host.data(), n * sizeof(double), exec);
  }
  EXPECT_GT(memory.stats().spilled_to_host_count, 0u);
  std::vector<double> back(n);
  auto pin = buffers[0]->pin();
  slab::copy(back.data(), pin.data(), n * sizeof(double), exec);
  EXPECT_EQ(back[0], 1.0);
  EXPECT_EQ(back[n - 1], static_cast<double>(n));
  EXPECT_LE(memory.stats().device.high_water, 2 * n * sizeof(double));
}

TEST_F(GpuComm, CollectivesOnDevicePointersMatchTheHostPath) {
  slab::Comm& comm = *comm_;
  const slab::ExecutionContext& exec = *exec_;
  const std::size_t n = 1 << 18;
  const int size = comm.size();
  std::vector<double> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<double>(i % 97) + comm.rank();
  auto* dev_in = static_cast<double*>(slab::detail::device_alloc(n * sizeof(double), exec.stream()));
  auto* dev_out = static_cast<double*>(slab::detail::device_alloc(n * sizeof(double), exec.stream()));
  slab::copy(dev_in, host.data(), n * sizeof(double), exec);
  comm.allreduce(std::span<const double>(dev_in, n), std::span<double>(dev_out, n), slab::ReduceOp::sum);
  std::vector<double> got(n);
  slab::copy(got.data(), dev_out, n * sizeof(double), exec);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != size * static_cast<double>(i % 97) + size * (size - 1) / 2.0;
  EXPECT_EQ(wrong, 0u);
  // alltoall: block p of rank r holds r * 1000 + p.
  const std::size_t block = 1024;
  std::vector<double> send(block * size);
  for (int p = 0; p < size; ++p)
    for (std::size_t i = 0; i < block; ++i) send[p * block + i] = comm.rank() * 1000.0 + p;
  auto* dsend = static_cast<double*>(slab::detail::device_alloc(send.size() * sizeof(double), exec.stream()));
  auto* drecv = static_cast<double*>(slab::detail::device_alloc(send.size() * sizeof(double), exec.stream()));
  slab::copy(dsend, send.data(), send.size() * sizeof(double), exec);
  comm.alltoall(std::span<const double>(dsend, send.size()), std::span<double>(drecv, send.size()));
  std::vector<double> recv(send.size());
  slab::copy(recv.data(), drecv, recv.size() * sizeof(double), exec);
  for (int p = 0; p < size; ++p) EXPECT_EQ(recv[p * block], p * 1000.0 + comm.rank());
  for (void* p :
       {static_cast<void*>(dev_in), static_cast<void*>(dev_out), static_cast<void*>(dsend), static_cast<void*>(drecv)})
    slab::detail::device_free(p, exec.stream());
}

// alltoallv on device buffers where some ranks have nothing to send or to receive (a null buffer, as kernel scratch
// of 0 bytes gives): every rank takes the same path (NCCL, or staging where ranks share the GPU) and the data
// arrives. Round 0: rank 0 sends to itself and to the last rank, the others send nothing and only the last rank
// receives; round 1: only rank 0 sends, to itself, so every other rank has no buffer at all.
TEST_F(GpuComm, AlltoallvWithEmptyRanksOnDevice) {
  slab::Comm& comm = *comm_;
  const slab::ExecutionContext& exec = *exec_;
  const int me = comm.rank(), p = comm.size();
  const std::size_t n = 1000;
  for (int round = 0; round < 2; ++round) {
    std::vector<std::size_t> sc(static_cast<std::size_t>(p), 0), rc(static_cast<std::size_t>(p), 0);
    const int far = round == 0 ? p - 1 : 0;  // rank 0's second destination
    if (me == 0) {
      sc[0] += n;
      if (far != 0) sc[static_cast<std::size_t>(far)] += n;
      rc[0] = n;
    } else if (me == far) {
      rc[0] = n;
    }
    std::vector<double> send;
    for (int to = 0; to < p; ++to)
      for (std::size_t i = 0; i < sc[static_cast<std::size_t>(to)]; ++i) send.push_back(1000.0 * to + i);
    std::size_t rtotal = 0;
    for (std::size_t c : rc) rtotal += c;
    auto alloc = [&](std::size_t count) {
      return count ? static_cast<double*>(slab::detail::device_alloc(count * sizeof(double), exec.stream())) : nullptr;
    };
    double* dsend = alloc(send.size());
    double* drecv = alloc(rtotal);
    if (!send.empty()) slab::copy(dsend, send.data(), send.size() * sizeof(double), exec);
    comm.alltoallv(std::span<const double>(dsend, send.size()), std::span<const std::size_t>(sc),
                   std::span<double>(drecv, rtotal), std::span<const std::size_t>(rc));
    std::vector<double> got(rtotal);
    if (rtotal) slab::copy(got.data(), drecv, rtotal * sizeof(double), exec);
    for (std::size_t i = 0; i < rtotal; ++i)
      ASSERT_EQ(got[i], 1000.0 * me + static_cast<double>(i)) << "round " << round;
    for (void* q : {static_cast<void*>(dsend), static_cast<void*>(drecv)})
      if (q) slab::detail::device_free(q, exec.stream());
  }
}

// Collectives whose ranks' buffers differ in memory kind (device partials reduced into a host result on the root;
// one rank's output in host memory) stage on every rank rather than leave the others waiting in NCCL.
TEST_F(GpuComm, CollectivesWithMixedMemoryKinds) {
  slab::Comm& comm = *comm_;
  const slab::ExecutionContext& exec = *exec_;
  const int me = comm.rank(), p = comm.size();
  const std::size_t n = 4096;
  std::vector<double> mine(n);
  for (std::size_t i = 0; i < n; ++i) mine[i] = static_cast<double>(i) + me;
  auto* dev_in = static_cast<double*>(slab::detail::device_alloc(n * sizeof(double), exec.stream()));
  auto* dev_out = static_cast<double*>(slab::detail::device_alloc(n * sizeof(double), exec.stream()));
  slab::copy(dev_in, mine.data(), n * sizeof(double), exec);
  const double ranks = p, rank_sum = p * (p - 1) / 2.0;
  // reduce: device inputs, the root's result in host memory.
  std::vector<double> host_out(n, -1.0);
  comm.reduce(std::span<const double>(dev_in, n), std::span<double>(host_out), slab::ReduceOp::sum, 0);
  if (me == 0)
    for (std::size_t i = 0; i < n; i += 511) EXPECT_EQ(host_out[i], ranks * static_cast<double>(i) + rank_sum) << i;
  // allreduce: rank 0's output in host memory, the others' on the device.
  std::vector<double> got(n, -1.0);
  if (me == 0) {
    comm.allreduce(std::span<const double>(dev_in, n), std::span<double>(got), slab::ReduceOp::sum);
  } else {
    comm.allreduce(std::span<const double>(dev_in, n), std::span<double>(dev_out, n), slab::ReduceOp::sum);
    slab::copy(got.data(), dev_out, n * sizeof(double), exec);
  }
  for (std::size_t i = 0; i < n; i += 511) EXPECT_EQ(got[i], ranks * static_cast<double>(i) + rank_sum) << i;
  for (void* q : {static_cast<void*>(dev_in), static_cast<void*>(dev_out)}) slab::detail::device_free(q, exec.stream());
}
