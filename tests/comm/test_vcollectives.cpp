// allgatherv, gatherv and alltoallv with uneven and zero counts, through the MPI v-collectives and (with a
// tiny piece size) through the pairwise exchange; argument mismatches throw the same error everywhere.
#include <gtest/gtest.h>

#include <vector>

#include "comm_test_util.hpp"
#include "slab/comm/comm.hpp"

using slab::Comm;
using namespace slab_test;

namespace {
std::size_t vcount(int r, std::size_t scale) { return r == 1 ? 0 : (static_cast<std::size_t>(r) * 7 + 1) * scale; }
/// Elements rank r sends to rank k in alltoallv (zeros included).
std::size_t a2a_count(int r, int k, std::size_t scale) { return static_cast<std::size_t>((r * 3 + k * 5) % 4) * scale; }
std::int64_t a2a_value(int r, int k, std::size_t i) { return f(r * 64 + k, i); }

void check_allgatherv(const Comm& comm, std::size_t scale) {
  const int p = comm.size();
  std::vector<std::int64_t> in(vcount(comm.rank(), scale));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = f(comm.rank(), i);
  std::vector<std::int64_t> out{42};
  auto v = comm.allgatherv(std::span<const std::int64_t>(in), out);
  std::size_t off = 0;
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(v.counts[static_cast<std::size_t>(r)], vcount(r, scale));
    EXPECT_EQ(v.displs[static_cast<std::size_t>(r)], off);
    for (std::size_t i = 0; i < vcount(r, scale); ++i) EXPECT_EQ(out[off + i], f(r, i));
    off += vcount(r, scale);
  }
  EXPECT_EQ(out.size(), off);
  for (int root = 0; root < p; ++root) {
    std::vector<std::int64_t> g;
    comm.gatherv(std::span<const std::int64_t>(in), g, root);
    if (comm.rank() == root)
      EXPECT_EQ(g, out);
    else
      EXPECT_TRUE(g.empty());
  }
}

void check_alltoallv(const Comm& comm, std::size_t scale) {
  const int p = comm.size();
  std::vector<std::size_t> sc(static_cast<std::size_t>(p));
  std::vector<std::int64_t> send;
  for (int k = 0; k < p; ++k) {
    sc[static_cast<std::size_t>(k)] = a2a_count(comm.rank(), k, scale);
    for (std::size_t i = 0; i < sc[static_cast<std::size_t>(k)]; ++i) send.push_back(a2a_value(comm.rank(), k, i));
  }
  std::vector<std::int64_t> recv;
  std::vector<std::size_t> rc;
  comm.alltoallv(std::span<const std::int64_t>(send), std::span<const std::size_t>(sc), recv, rc);
  std::vector<std::int64_t> expected;
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(rc[static_cast<std::size_t>(r)], a2a_count(r, comm.rank(), scale));
    for (std::size_t i = 0; i < a2a_count(r, comm.rank(), scale); ++i) expected.push_back(a2a_value(r, comm.rank(), i));
  }
  EXPECT_EQ(recv, expected);
  // the span form with known receive counts
  std::vector<std::int64_t> recv2(expected.size(), -1);
  comm.alltoallv(std::span<const std::int64_t>(send), std::span<const std::size_t>(sc), std::span<std::int64_t>(recv2),
                 std::span<const std::size_t>(rc));
  EXPECT_EQ(recv2, expected);
}
}  // namespace

TEST(CommV, AllgathervGathervUnevenAndZero) {
  Comm comm(MPI_COMM_WORLD);
  check_allgatherv(comm, 1);
  check_allgatherv(comm, 300);
}

TEST(CommV, AlltoallvUnevenAndZero) {
  Comm comm(MPI_COMM_WORLD);
  check_alltoallv(comm, 1);
  check_alltoallv(comm, 500);
}

TEST(CommV, ChunkedPairwisePaths) {
  MaxMessageGuard guard(1000);  // every count over 125 int64 goes pairwise in pieces
  Comm comm(MPI_COMM_WORLD);
  check_allgatherv(comm, 1);
  check_allgatherv(comm, 300);
  check_alltoallv(comm, 1);
  check_alltoallv(comm, 500);
}

TEST(CommV, AllEmpty) {
  Comm comm(MPI_COMM_WORLD);
  std::vector<double> out{1.0};
  auto v = comm.allgatherv(std::span<const double>(), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(v.counts, std::vector<std::size_t>(static_cast<std::size_t>(comm.size()), 0));
  std::vector<std::size_t> sc(static_cast<std::size_t>(comm.size()), 0), rc;
  std::vector<double> recv{1.0};
  comm.alltoallv(std::span<const double>(), std::span<const std::size_t>(sc), recv, rc);
  EXPECT_TRUE(recv.empty());
}

TEST(CommV, BadCountsOnOneRankThrowEverywhere) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const int bad = p - 1;
  std::vector<std::size_t> sc(static_cast<std::size_t>(comm.rank() == bad ? p + 1 : p), 0);
  std::vector<int> recv;
  std::vector<std::size_t> rc;
  std::string message;
  int origin = -2;
  try {
    comm.alltoallv(std::span<const int>(), std::span<const std::size_t>(sc), recv, rc);
  } catch (const slab::ShapeError& e) {
    message = e.message(), origin = e.origin_rank();
  }
  EXPECT_EQ(message,
            "alltoallv: send counts has " + std::to_string(p + 1) + " entries for " + std::to_string(p) + " ranks");
  EXPECT_EQ(origin, bad);  // the rank whose arguments were wrong, beside the message
  EXPECT_TRUE(same_on_all_ranks(message));
}

TEST(CommV, MismatchedCollectiveArgumentsThrowEverywhere) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  std::vector<double> v(comm.rank() == 0 ? 5 : 6, 1.0);
  std::string message;
  try {
    comm.bcast(std::span<double>(v), 0);
  } catch (const slab::ShapeError& e) {
    message = e.message();
  }
  EXPECT_EQ(message, p == 1 ? std::string() : "bcast: element count differs across ranks (min 5, max 6)");
  EXPECT_TRUE(same_on_all_ranks(message));
  message.clear();
  try {
    comm.bcast(std::span<double>(v), p);  // out of range on every rank
  } catch (const slab::ShapeError& e) {
    message = e.message();
  }
  EXPECT_EQ(message, "bcast: root " + std::to_string(p) + " is out of range for " + std::to_string(p) + " ranks");
  message.clear();
  std::vector<double> out(comm.rank() == 0 ? 4 : 5), in(5);
  try {
    comm.allreduce(std::span<const double>(in), std::span<double>(out), slab::ReduceOp::sum);
  } catch (const slab::ShapeError& e) {
    message = e.message();
  }
  EXPECT_EQ(message, "allreduce: output has 4 elements, input 5");
  EXPECT_TRUE(same_on_all_ranks(message));
  message.clear();
  try {
    comm.allreduce(std::span<double>(in), slab::ReduceOp::land);
  } catch (const slab::ShapeError& e) {
    message = e.message();
  }
  EXPECT_EQ(message, "allreduce: logical and/or are defined for integer types only");
}
