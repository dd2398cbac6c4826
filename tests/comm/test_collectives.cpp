// bcast, reduce (fixed tree, bitwise determinism), allreduce, tree_reduce_bytes, allgather, send/recv, split,
// tracing: every result against a reference computed serially from the known per-rank data f(r, i).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "comm_test_util.hpp"
#include "slab/comm/comm.hpp"
#include "slab/trace/tracer.hpp"

using slab::Comm;
using slab::ReduceOp;
using namespace slab_test;

namespace {
struct Pod {
  int a;
  double b;
  char c[3];
};
}  // namespace

class CommSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CommSizes, BcastEveryRoot) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t n = GetParam();
  for (int root = 0; root < comm.size(); ++root) {
    std::vector<std::int64_t> v(n, -1);
    if (comm.rank() == root)
      for (std::size_t i = 0; i < n; ++i) v[i] = f(root, i);
    comm.bcast(std::span<std::int64_t>(v), root);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(v[i], f(root, i)) << "root " << root << " i " << i;
  }
}

TEST_P(CommSizes, AllreduceOps) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t n = GetParam();
  const int p = comm.size();
  std::vector<std::int64_t> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = f(comm.rank(), i);
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max}) {
    comm.allreduce(std::span<const std::int64_t>(in), std::span<std::int64_t>(out), op);
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t e = f(0, i);
      for (int r = 1; r < p; ++r)
        e = op == ReduceOp::sum ? e + f(r, i) : op == ReduceOp::min ? std::min(e, f(r, i)) : std::max(e, f(r, i));
      EXPECT_EQ(out[i], e) << i;
    }
  }
  // in place, doubles with exactly representable sums
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<double>(f(comm.rank(), i));
  comm.allreduce(std::span<double>(d), ReduceOp::sum);
  for (std::size_t i = 0; i < n; ++i) {
    double e = 0;
    for (int r = 0; r < p; ++r) e += static_cast<double>(f(r, i));
    EXPECT_EQ(d[i], e);
  }
}

TEST_P(CommSizes, ReduceFixedTreeIsBitwiseDeterministic) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t n = GetParam();
  const int p = comm.size();
  std::vector<double> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = g(comm.rank(), i);
  // the expected value in the tree's own order, computed serially
  std::vector<std::vector<double>> parts(static_cast<std::size_t>(p), std::vector<double>(n));
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < n; ++i) parts[static_cast<std::size_t>(r)][i] = g(r, i);
  const auto expected = tree_fold<std::vector<double>>(parts, [](std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  });
  for (int root = 0; root < p; ++root) {
    std::vector<double> out1(comm.rank() == root ? n : 0), out2(comm.rank() == root ? n : 0);
    comm.reduce(std::span<const double>(in), std::span<double>(out1), ReduceOp::sum, root);
    comm.reduce(std::span<const double>(in), std::span<double>(out2), ReduceOp::sum, root);
    if (comm.rank() == root && n > 0) {
      EXPECT_EQ(std::memcmp(out1.data(), out2.data(), n * sizeof(double)), 0);
      EXPECT_EQ(std::memcmp(out1.data(), expected.data(), n * sizeof(double)), 0) << "root " << root;
    }
  }
  // integer ops and in-place on the root
  std::vector<int> iv(n);
  for (std::size_t i = 0; i < n; ++i) iv[i] = static_cast<int>(f(comm.rank(), i) % 1000);
  for (ReduceOp op : {ReduceOp::max, ReduceOp::min, ReduceOp::prod, ReduceOp::land, ReduceOp::lor}) {
    std::vector<int> buf = iv;
    comm.reduce(std::span<const int>(buf), std::span<int>(buf), op, p - 1);
    if (comm.rank() == p - 1)
      for (std::size_t i = 0; i < n; ++i) {
        int e = static_cast<int>(f(0, i) % 1000);
        for (int r = 1; r < p; ++r) {
          const int x = static_cast<int>(f(r, i) % 1000);
          e = op == ReduceOp::max    ? std::max(e, x)
              : op == ReduceOp::min  ? std::min(e, x)
              : op == ReduceOp::prod ? e * x
              : op == ReduceOp::land ? int(e && x)
                                     : int(e || x);
        }
        if (op == ReduceOp::land || op == ReduceOp::lor) e = e != 0;
        EXPECT_EQ(buf[i], e) << "op " << int(op) << " i " << i;
      }
  }
}

TEST_P(CommSizes, AllgatherAndAlltoall) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t n = GetParam();
  const int p = comm.size();
  const auto up = static_cast<std::size_t>(p);
  std::vector<std::int64_t> in(n), out(n * up);
  for (std::size_t i = 0; i < n; ++i) in[i] = f(comm.rank(), i);
  comm.allgather(std::span<const std::int64_t>(in), std::span<std::int64_t>(out));
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[static_cast<std::size_t>(r) * n + i], f(r, i));
  // alltoall: block k of rank r holds f(r * p + k, i)
  std::vector<std::int64_t> send(n * up), recv(n * up);
  for (std::size_t k = 0; k < up; ++k)
    for (std::size_t i = 0; i < n; ++i) send[k * n + i] = f(comm.rank() * p + static_cast<int>(k), i);
  comm.alltoall(std::span<const std::int64_t>(send), std::span<std::int64_t>(recv));
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(recv[static_cast<std::size_t>(r) * n + i], f(r * p + comm.rank(), i));
}

TEST_P(CommSizes, SendRecvRingAndStructs) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t n = GetParam();
  const int p = comm.size();
  const int next = (comm.rank() + 1) % p, prev = (comm.rank() + p - 1) % p;
  std::vector<Pod> send(n), recv(n);
  for (std::size_t i = 0; i < n; ++i) send[i] = Pod{comm.rank(), static_cast<double>(i), {'a', 'b', 'c'}};
  comm.sendrecv(std::span<const Pod>(send), next, std::span<Pod>(recv), prev, 5);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(recv[i].a, prev);
    EXPECT_EQ(recv[i].b, static_cast<double>(i));
    EXPECT_EQ(recv[i].c[2], 'c');
  }
  if (p > 1) {  // plain send/recv: even ranks send first
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = g(comm.rank(), i);
    if (comm.rank() % 2 == 0) {
      if (comm.rank() + 1 < p) comm.send(std::span<const double>(a), comm.rank() + 1, 9);
    } else {
      comm.recv(std::span<double>(b), comm.rank() - 1, 9);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(b[i], g(comm.rank() - 1, i));
    }
  }
  // structs through bcast and allgather (byte-wise fallback)
  std::vector<Pod> all(n * static_cast<std::size_t>(p));
  comm.allgather(std::span<const Pod>(send), std::span<Pod>(all));
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(all[static_cast<std::size_t>(r) * n + i].a, r);
}

// 0: empty; 1; 1000; 5000 elements (larger than the 1000-byte pieces of the Chunked suite)
INSTANTIATE_TEST_SUITE_P(Comm, CommSizes,
                         ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{5000}));

// The same tests with a 1000-byte piece size, so every chunked / pairwise path runs.
class CommChunked : public CommSizes {
 protected:
  MaxMessageGuard guard{1000};
};
TEST_P(CommChunked, All) {
  // rerun the bodies above under the small piece size
  CommSizes_BcastEveryRoot_Test().TestBody();
  CommSizes_AllreduceOps_Test().TestBody();
  CommSizes_ReduceFixedTreeIsBitwiseDeterministic_Test().TestBody();
  CommSizes_AllgatherAndAlltoall_Test().TestBody();
  CommSizes_SendRecvRingAndStructs_Test().TestBody();
}
INSTANTIATE_TEST_SUITE_P(Comm, CommChunked,
                         ::testing::Values(std::size_t{0}, std::size_t{3}, std::size_t{777}, std::size_t{4000}));

TEST(Comm, ScalarAllreduceAndTypes) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  EXPECT_EQ(comm.allreduce(comm.rank() + 1, ReduceOp::sum), p * (p + 1) / 2);
  EXPECT_EQ(comm.allreduce(static_cast<unsigned>(comm.rank()), ReduceOp::max), static_cast<unsigned>(p - 1));
  EXPECT_EQ(comm.allreduce(static_cast<std::uint64_t>(comm.rank() + 2), ReduceOp::prod), [&] {
    std::uint64_t e = 1;
    for (int r = 0; r < p; ++r) e *= static_cast<std::uint64_t>(r + 2);
    return e;
  }());
  EXPECT_EQ(comm.allreduce(static_cast<float>(comm.rank()), ReduceOp::min), 0.0f);
  EXPECT_EQ(comm.allreduce(static_cast<char>(comm.rank() + 1), ReduceOp::max), static_cast<char>(p));
  EXPECT_EQ(comm.allreduce(std::byte{static_cast<unsigned char>(comm.rank())}, ReduceOp::max),
            std::byte{static_cast<unsigned char>(p - 1)});
  EXPECT_EQ(comm.allreduce(comm.rank() == 0 ? 1 : 0, ReduceOp::lor), 1);
  EXPECT_EQ(comm.allreduce(comm.rank() == 0 ? 1 : 0, ReduceOp::land), p == 1 ? 1 : 0);
  EXPECT_EQ(slab::mpi_type<double>(), MPI_DOUBLE);
  EXPECT_EQ(slab::mpi_type<std::int64_t>(), MPI_INT64_T);
}

namespace {
std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> v(s.size());
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}
std::string to_string(const std::vector<std::byte>& v) { return {reinterpret_cast<const char*>(v.data()), v.size()}; }
}  // namespace

TEST(Comm, TreeReduceBytesHasFixedNonCommutativeOrder) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  // a non-commutative, non-associative combine exposes both the order and the bracketing
  auto combine = [](std::vector<std::byte>& acc, const std::vector<std::byte>& other) {
    acc = to_bytes("(" + to_string(acc) + "," + to_string(other) + ")");
  };
  std::vector<std::string> parts;
  for (int r = 0; r < p; ++r) parts.push_back(std::string(static_cast<std::size_t>(r % 3), 'x') + std::to_string(r));
  const std::string expected =
      tree_fold<std::string>(parts, [](std::string& a, const std::string& b) { a = "(" + a + "," + b + ")"; });
  if (p == 4) EXPECT_EQ(expected, "((0,x1),(xx2,3))");
  for (int root = 0; root < p; ++root) {
    auto v = to_bytes(parts[static_cast<std::size_t>(comm.rank())]);
    comm.tree_reduce_bytes(v, combine, root);
    if (comm.rank() == root) EXPECT_EQ(to_string(v), expected) << "root " << root;
  }
  {
    MaxMessageGuard small(2);
    auto v = to_bytes(parts[static_cast<std::size_t>(comm.rank())]);
    comm.tree_allreduce_bytes(v, combine);
    EXPECT_EQ(to_string(v), expected);
  }
  // empty values on some ranks
  auto v = comm.rank() % 2 ? std::vector<std::byte>{} : to_bytes("a");
  comm.tree_allreduce_bytes(
      v, [](std::vector<std::byte>& a, const std::vector<std::byte>& b) { a.insert(a.end(), b.begin(), b.end()); });
  EXPECT_EQ(to_string(v), std::string(static_cast<std::size_t>((p + 1) / 2), 'a'));
}

TEST(Comm, SplitEvenOdd) {
  Comm comm(MPI_COMM_WORLD);
  Comm sub = comm.split(comm.rank() % 2, -comm.rank());  // reversed order inside each half
  const int p = comm.size();
  const int mine = (p - comm.rank() % 2 + 1) / 2;
  EXPECT_EQ(sub.size(), mine);
  int members_above = 0;
  for (int r = comm.rank() + 2; r < p; r += 2) ++members_above;
  EXPECT_EQ(sub.rank(), members_above);
  EXPECT_EQ(sub.allreduce(comm.rank(), ReduceOp::sum), [&] {
    int s = 0;
    for (int r = comm.rank() % 2; r < p; r += 2) s += r;
    return s;
  }());
  Comm copy = sub;  // shared ownership: the copy stays valid after the original goes
  sub = Comm::split(comm, 0, comm.rank());
  EXPECT_EQ(copy.allreduce(1, ReduceOp::sum), mine);
  EXPECT_EQ(sub.size(), p);
}

TEST(Comm, RecordsTraceEvents) {
  slab::Tracer tracer(MPI_COMM_WORLD);
  Comm comm(MPI_COMM_WORLD, &tracer);
  std::vector<double> v(100, 1.0);
  comm.allreduce(std::span<double>(v), ReduceOp::sum);
  comm.bcast(std::span<double>(v), 0);
  comm.barrier();
  const auto& ev = tracer.events();
  ASSERT_GE(ev.size(), 3u);  // no collective follows in this test
  EXPECT_EQ(ev[ev.size() - 3].name, "allreduce");
  EXPECT_EQ(ev[ev.size() - 3].bytes, 800u);
  EXPECT_EQ(ev[ev.size() - 3].kind, slab::TraceKind::comm);
  EXPECT_EQ(ev[ev.size() - 2].name, "bcast");
  EXPECT_EQ(ev.back().name, "barrier");
}
