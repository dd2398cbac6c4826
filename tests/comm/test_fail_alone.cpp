// A rank that fails on its own, before a collective the other ranks have already entered, calls agree() and
// meets them at that collective's argument check: every rank then throws the same error, and the
// communicator stays usable. One case per kind of collective, each with the failing rank first and last.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "comm_test_util.hpp"
#include "reliability_record.hpp"
#include "slab/comm/comm.hpp"

using slab::Comm;
using slab::ReduceOp;
using namespace slab_test;

namespace {

/// Runs `collective` on every rank but `bad`, which fails alone and agrees instead. Returns this rank's message.
std::string fail_alone(const Comm& comm, int bad, const std::function<void()>& collective) {
  try {
    if (comm.rank() == bad) {
      fail_alone_and_agree(comm);
    } else {
      collective();
    }
  } catch (const slab::IoError& e) {
    EXPECT_TRUE(slab::is_agreed_error(e));
    return e.message();
  } catch (const std::exception& e) {
    return std::string("wrong kind: ") + e.what();
  }
  return "no exception";
}

/// Every rank must hold `expected`, and the communicator must still work; records one reliability line.
void expect_agreed_everywhere(const Comm& comm, const std::string& case_name, const std::string& kind,
                              const std::string& m, const std::string& expected) {
  EXPECT_EQ(m, expected);
  const bool same = same_on_all_ranks(m);
  EXPECT_TRUE(same);
  // Still in step: the next collective works on every rank.
  const int sum = comm.allreduce(1, ReduceOp::sum);
  EXPECT_EQ(sum, comm.size());
  if (comm.rank() == 0)
    slab::testing::record_reliability(
        "fail_alone", case_name, "same agreed error on every rank; the communicator stays usable",
        m == expected && same && sum == comm.size(), kind + " \"" + m + "\"", comm.size());
}

/// `name`'s collective with each of the last and the first rank failing alone.
void expect_every_rank_fails(const Comm& comm, const std::string& name, const std::function<void()>& collective) {
  std::vector<int> bad_ranks{comm.size() - 1};
  if (comm.size() > 1) bad_ranks.push_back(0);
  for (int bad : bad_ranks)
    expect_agreed_everywhere(
        comm, name + ": rank " + std::to_string(bad) + " of " + std::to_string(comm.size()) + " fails before it",
        "IoError", fail_alone(comm, bad, collective), "lost block 7");
}

}  // namespace

TEST(FailAlone, Allreduce) {
  Comm comm(MPI_COMM_WORLD);
  expect_every_rank_fails(comm, "allreduce", [&] {
    std::vector<double> v(1000, 1.0);
    comm.allreduce(std::span<double>(v), ReduceOp::sum);
  });
}

TEST(FailAlone, BcastReduceAllgatherAlltoall) {
  Comm comm(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(comm.size());
  expect_every_rank_fails(comm, "bcast", [&] {
    std::vector<std::int64_t> v(10, comm.rank());
    comm.bcast(std::span<std::int64_t>(v), 0);
  });
  expect_every_rank_fails(comm, "reduce", [&] {
    std::vector<std::int64_t> in(10, 1), out(10);
    comm.reduce(std::span<const std::int64_t>(in), std::span<std::int64_t>(out), ReduceOp::sum, 0);
  });
  expect_every_rank_fails(comm, "allgather", [&] {
    std::vector<int> in(3, comm.rank()), out(3 * p);
    comm.allgather(std::span<const int>(in), std::span<int>(out));
  });
  expect_every_rank_fails(comm, "alltoall", [&] {
    std::vector<int> in(2 * p, comm.rank()), out(2 * p);
    comm.alltoall(std::span<const int>(in), std::span<int>(out));
  });
}

TEST(FailAlone, VariableCollectives) {
  Comm comm(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(comm.size());
  expect_every_rank_fails(comm, "allgatherv", [&] {
    std::vector<double> in(static_cast<std::size_t>(comm.rank()) + 1, 2.0), out;
    comm.allgatherv(std::span<const double>(in), out);
  });
  expect_every_rank_fails(comm, "gatherv", [&] {
    std::vector<double> in(5, 2.0), out;
    comm.gatherv(std::span<const double>(in), out, 0);
  });
  expect_every_rank_fails(comm, "alltoallv", [&] {
    std::vector<std::size_t> counts(p, 3), recv_counts;
    std::vector<std::int64_t> in(3 * p, 1), out;
    comm.alltoallv(std::span<const std::int64_t>(in), std::span<const std::size_t>(counts), out, recv_counts);
  });
}

TEST(FailAlone, BarrierAndTreeReduce) {
  Comm comm(MPI_COMM_WORLD);
  expect_every_rank_fails(comm, "barrier", [&] { comm.barrier(); });
  expect_every_rank_fails(comm, "tree_allreduce_bytes", [&] {
    std::vector<std::byte> v(8, std::byte{1});
    comm.tree_allreduce_bytes(v, [](std::vector<std::byte>& acc, const std::vector<std::byte>& other) {
      acc.insert(acc.end(), other.begin(), other.end());
    });
  });
}

TEST(FailAlone, CombineThrowingInsideTheTreeReachesEveryRank) {
  // The combine fails on the rank that folds rank 1's partial: the failure travels up the tree instead of a
  // value, and the ranks agree afterwards (no rank is left waiting for a partial that never comes).
  Comm comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "no combine at one rank";
  std::string m;
  try {
    std::vector<std::byte> v(1, static_cast<std::byte>(comm.rank()));
    comm.tree_allreduce_bytes(v, [](std::vector<std::byte>& acc, const std::vector<std::byte>& other) {
      if (other.front() == std::byte{1}) SLAB_FAIL(slab::ShapeError, "partial of rank 1 is malformed");
      acc.insert(acc.end(), other.begin(), other.end());
    });
  } catch (const slab::ShapeError& e) {
    m = e.message();
  }
  // rank 0 folds rank 1's partial
  expect_agreed_everywhere(comm, "tree_allreduce_bytes: the combine throws on rank 0 of " + std::to_string(comm.size()),
                           "ShapeError", m, "partial of rank 1 is malformed");
}

TEST(FailAlone, AnAgreedErrorIsPassedOnWithoutAnotherExchange) {
  // Every rank holds the same agreed error: agree() rethrows it at once. Were it to communicate, a rank that
  // skipped this agree would leave the others waiting; here all call it, and the next collective must match.
  Comm comm(MPI_COMM_WORLD);
  std::exception_ptr agreed;
  try {
    comm.agree(comm.rank() != 0, "first");
  } catch (...) {
    agreed = std::current_exception();
  }
  ASSERT_TRUE(agreed);
  if (comm.rank() % 2 == 0) EXPECT_THROW(comm.agree(agreed), slab::InvalidArgument);  // odd ranks skip it
  EXPECT_EQ(comm.allreduce(comm.rank(), ReduceOp::max), comm.size() - 1);
}
