// Collective error agreement: a failure on one rank becomes the same exception, with the same message, on
// every rank.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "comm_test_util.hpp"
#include "slab/comm/comm.hpp"

using slab::Comm;
using namespace slab_test;

namespace {
std::string agree_message(const Comm& comm, int failing_rank, const std::string& text) {
  try {
    comm.agree(comm.rank() != failing_rank, "rank-local problem: " + text);
  } catch (const slab::InvalidArgument& e) {
    return e.message();
  }
  return "no exception";
}
}  // namespace

TEST(Agree, AllFineIsSilent) {
  Comm comm(MPI_COMM_WORLD);
  EXPECT_NO_THROW(comm.agree(true, "unused"));
  EXPECT_NO_THROW(comm.agree(std::exception_ptr{}));
  EXPECT_NO_THROW(comm.run_collectively([] {}));
}

TEST(Agree, FailureOnLastAndFirstRank) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  for (int bad : {p - 1, 0}) {
    const std::string m = agree_message(comm, bad, "spill directory /x is not writable");
    EXPECT_EQ(m, "rank " + std::to_string(bad) + ": rank-local problem: spill directory /x is not writable");
    EXPECT_TRUE(same_on_all_ranks(m));
  }
}

TEST(Agree, SeveralFailingRanksAreNamed) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  std::string m;
  try {
    comm.agree(p > 1 && comm.rank() % 2 == 0, "bad " + std::to_string(comm.rank()));
  } catch (const slab::InvalidArgument& e) {
    m = e.message();
  }
  // ranks 1, 3 fail (or rank 0 alone at one rank)
  const std::string expected = p == 1   ? "rank 0: bad 0"
                               : p <= 3 ? "rank 1: bad 1"
                                        : "rank 1: bad 1 (also failed on rank 3)";
  EXPECT_EQ(m, expected);
  EXPECT_TRUE(same_on_all_ranks(m));
}

TEST(Agree, RunCollectivelyRethrowsTheSameKindEverywhere) {
  Comm comm(MPI_COMM_WORLD);
  const int bad = comm.size() - 1;
  std::string m;
  try {
    comm.run_collectively([&] {
      if (comm.rank() == bad) SLAB_FAIL(slab::IoError, "cannot open data.h5");
    });
    ADD_FAILURE() << "no exception";
  } catch (const slab::IoError& e) {
    m = e.message();
    EXPECT_STREQ(e.kind(), "IoError");
  }
  EXPECT_EQ(m, "rank " + std::to_string(bad) + ": cannot open data.h5");
  EXPECT_TRUE(same_on_all_ranks(m));

  // non-slab exceptions: std::runtime_error -> slab::Error, std::bad_alloc -> OutOfMemory
  m.clear();
  try {
    slab::collective(comm, [&] {
      if (comm.rank() == 0) throw std::runtime_error("plain failure");
    });
  } catch (const slab::Error& e) {
    m = e.message();
    EXPECT_STREQ(e.kind(), "Error");
  }
  EXPECT_EQ(m, "rank 0: plain failure");
  EXPECT_THROW(comm.run_collectively([&] {
    if (comm.rank() == bad) throw std::bad_alloc();
  }),
               slab::OutOfMemory);
}

TEST(Agree, NestedAgreementKeepsTheMessage) {
  Comm comm(MPI_COMM_WORLD);
  const int bad = comm.size() - 1;
  std::string m;
  try {
    comm.run_collectively([&] { comm.agree(comm.rank() != bad, "inner"); });
  } catch (const slab::InvalidArgument& e) {
    m = e.message();
  }
  EXPECT_EQ(m, "rank " + std::to_string(bad) + ": inner");
}
