// Comm::reduce_scatter against a serial reference: the fixed binomial tree folded serially over the known
// per-rank data f(r, i) / g(r, i), at block sizes that differ per rank (zero included), in pieces of any size.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "comm_test_util.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"

using slab::Comm;
using slab::ReduceOp;
using namespace slab_test;

namespace {

// Block sizes that differ per rank and include an empty block at 3 ranks and more.
std::vector<std::size_t> uneven_counts(int p, std::size_t scale) {
  std::vector<std::size_t> c(static_cast<std::size_t>(p));
  for (int k = 0; k < p; ++k) c[static_cast<std::size_t>(k)] = (k == 1 && p >= 3) ? 0 : scale * (k + 1) + 3 * k;
  return c;
}

std::size_t sum(const std::vector<std::size_t>& c) {
  std::size_t s = 0;
  for (const std::size_t x : c) s += x;
  return s;
}

std::size_t offset_of(const std::vector<std::size_t>& c, int rank) {
  std::size_t s = 0;
  for (int k = 0; k < rank; ++k) s += c[static_cast<std::size_t>(k)];
  return s;
}

// Every rank's doubles, folded in the tree's order: the bitwise reference.
std::vector<double> tree_sum(int p, std::size_t total) {
  std::vector<std::vector<double>> parts(static_cast<std::size_t>(p), std::vector<double>(total));
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < total; ++i) parts[static_cast<std::size_t>(r)][i] = g(r, i);
  return tree_fold<std::vector<double>>(parts, [](std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  });
}

void check_doubles(const Comm& comm, const std::vector<std::size_t>& counts) {
  const std::size_t total = sum(counts);
  std::vector<double> data(total);
  for (std::size_t i = 0; i < total; ++i) data[i] = g(comm.rank(), i);
  const std::span<double> mine = comm.reduce_scatter(std::span<double>(data), counts, ReduceOp::sum);
  const std::size_t off = offset_of(counts, comm.rank());
  ASSERT_EQ(mine.size(), counts[static_cast<std::size_t>(comm.rank())]);
  EXPECT_EQ(mine.data(), data.data() + off);
  const std::vector<double> want = tree_sum(comm.size(), total);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    std::uint64_t a = 0, b = 0;  // bitwise, not approximately
    std::memcpy(&a, &mine[i], sizeof a);
    std::memcpy(&b, &want[off + i], sizeof b);
    EXPECT_EQ(a, b) << "element " << off + i << ": " << mine[i] << " vs " << want[off + i];
  }
}

}  // namespace

TEST(ReduceScatter, Float64UnevenBlocksBitwiseTree) {
  Comm comm(MPI_COMM_WORLD);
  check_doubles(comm, uneven_counts(comm.size(), 1000));
}

TEST(ReduceScatter, Float64SmallPieces) {
  Comm comm(MPI_COMM_WORLD);
  const MaxMessageGuard small(40);  // five doubles a message: many pieces per block, two in flight
  check_doubles(comm, uneven_counts(comm.size(), 37));
}

TEST(ReduceScatter, SameAsReduceOfEachBlock) {
  Comm comm(MPI_COMM_WORLD);
  const std::vector<std::size_t> counts = uneven_counts(comm.size(), 257);
  const std::size_t total = sum(counts);
  std::vector<double> data(total), whole(total);
  for (std::size_t i = 0; i < total; ++i) data[i] = g(comm.rank(), i) * 3.1 - 0.7;
  const std::vector<double> in = data;
  comm.reduce(std::span<const double>(in), std::span<double>(whole), ReduceOp::sum, 0);
  comm.bcast(std::span<double>(whole), 0);
  const std::span<double> mine = comm.reduce_scatter(std::span<double>(data), counts, ReduceOp::sum);
  const std::size_t off = offset_of(counts, comm.rank());
  for (std::size_t i = 0; i < mine.size(); ++i)
    EXPECT_EQ(std::memcmp(&mine[i], &whole[off + i], sizeof(double)), 0) << off + i;
}

TEST(ReduceScatter, Int64Ops) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const std::vector<std::size_t> counts = uneven_counts(p, 11);
  const std::size_t total = sum(counts), off = offset_of(counts, comm.rank());
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::lor}) {
    std::vector<std::int64_t> data(total);
    for (std::size_t i = 0; i < total; ++i)
      data[i] = op == ReduceOp::lor ? (f(comm.rank(), i) % 3 == 0) * 5 : f(comm.rank(), i) * (i % 2 ? 1 : -1);
    const std::span<std::int64_t> mine = comm.reduce_scatter(std::span<std::int64_t>(data), counts, op);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      auto v = [&](int r) {
        return op == ReduceOp::lor ? (f(r, off + i) % 3 == 0) * 5 : f(r, off + i) * ((off + i) % 2 ? 1 : -1);
      };
      std::int64_t e = v(0);
      for (int r = 1; r < p; ++r)
        e = op == ReduceOp::sum   ? e + v(r)
            : op == ReduceOp::min ? std::min(e, v(r))
            : op == ReduceOp::max ? std::max(e, v(r))
                                  : static_cast<std::int64_t>(e != 0 || v(r) != 0);
      if (op == ReduceOp::lor) e = e != 0;
      EXPECT_EQ(mine[i], e) << "op " << static_cast<int>(op) << " element " << off + i;
    }
  }
}

TEST(ReduceScatter, OnlyRankZeroHasABlock) {
  Comm comm(MPI_COMM_WORLD);
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm.size()), 0);
  counts[0] = 100;
  check_doubles(comm, counts);
  std::vector<std::size_t> none(static_cast<std::size_t>(comm.size()), 0);
  std::vector<double> empty;
  EXPECT_TRUE(comm.reduce_scatter(std::span<double>(empty), none, ReduceOp::sum).empty());
}

TEST(ReduceScatter, BadCountsThrowOnEveryRank) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  std::vector<double> data(10, 1.0);
  std::vector<std::size_t> wrong_size(static_cast<std::size_t>(p) + 1, 0);
  wrong_size[0] = 10;
  EXPECT_THROW(comm.reduce_scatter(std::span<double>(data), wrong_size, ReduceOp::sum), slab::ShapeError);
  std::vector<std::size_t> short_sum(static_cast<std::size_t>(p), 0);
  short_sum[0] = 9;
  EXPECT_THROW(comm.reduce_scatter(std::span<double>(data), short_sum, ReduceOp::sum), slab::ShapeError);
  // Counts that sum right on every rank but differ between ranks (only at 2 ranks and more).
  if (p > 1) {
    std::vector<std::size_t> differ(static_cast<std::size_t>(p), 0);
    differ[static_cast<std::size_t>(comm.rank() == 0 ? 0 : 1)] = 10;
    EXPECT_THROW(comm.reduce_scatter(std::span<double>(data), differ, ReduceOp::sum), slab::ShapeError);
  }
  std::vector<std::size_t> ok(static_cast<std::size_t>(p), 0);
  ok[0] = 10;
  EXPECT_THROW(comm.reduce_scatter(std::span<double>(data), ok, ReduceOp::land), slab::ShapeError);
  // The communicator is still usable afterwards.
  check_doubles(comm, uneven_counts(p, 5));
}
