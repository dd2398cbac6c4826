// Collective error agreement: a failure on one rank becomes the same exception, with the same message, on
// every rank. The message is the one raised, unchanged; the rank it came from is Error::origin_rank().
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <vector>

#include "comm_test_util.hpp"
#include "slab/comm/comm.hpp"

using slab::Comm;
using namespace slab_test;

namespace {
struct Agreed {
  std::string message = "no exception";
  int origin = -2;
  std::vector<int> also;
  std::string what;
};
Agreed agree_message(const Comm& comm, int failing_rank, const std::string& text) {
  try {
    comm.agree(comm.rank() != failing_rank, "rank-local problem: " + text);
  } catch (const slab::InvalidArgument& e) {
    return {e.message(), e.origin_rank(), e.also_failed_on(), e.what()};
  }
  return {};
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
    const Agreed a = agree_message(comm, bad, "spill directory /x is not writable");
    EXPECT_EQ(a.message, "rank-local problem: spill directory /x is not writable");
    EXPECT_EQ(a.origin, bad);
    EXPECT_TRUE(a.also.empty());
    EXPECT_NE(a.what.find("(rank " + std::to_string(bad) + ", "), std::string::npos) << a.what;
    EXPECT_TRUE(same_on_all_ranks(a.message));
    EXPECT_TRUE(same_on_all_ranks(a.what));
  }
}

TEST(Agree, SeveralFailingRanksAreNamed) {
  Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  std::string m, what;
  int origin = -2;
  std::vector<int> also;
  try {
    comm.agree(p > 1 && comm.rank() % 2 == 0, "bad " + std::to_string(comm.rank()));
  } catch (const slab::InvalidArgument& e) {
    m = e.message(), what = e.what(), origin = e.origin_rank(), also = e.also_failed_on();
  }
  // ranks 1, 3 fail (or rank 0 alone at one rank): rank 1's message, the other failing ranks beside it
  EXPECT_EQ(m, p == 1 ? "bad 0" : "bad 1");
  EXPECT_EQ(origin, p == 1 ? 0 : 1);
  EXPECT_EQ(also, p == 4 ? std::vector<int>{3} : std::vector<int>{});
  if (p == 4) EXPECT_NE(what.find("; also failed on rank 3)"), std::string::npos) << what;
  EXPECT_TRUE(same_on_all_ranks(m));
  EXPECT_TRUE(same_on_all_ranks(what));
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
    EXPECT_EQ(e.origin_rank(), bad);
    // The raising file and line travel with it.
    EXPECT_NE(std::string(e.what()).find("test_agree.cpp:"), std::string::npos) << e.what();
  }
  EXPECT_EQ(m, "cannot open data.h5");
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
    EXPECT_EQ(e.origin_rank(), 0);
  }
  EXPECT_EQ(m, "plain failure");
  EXPECT_THROW(comm.run_collectively([&] {
    if (comm.rank() == bad) throw std::bad_alloc();
  }),
               slab::OutOfMemory);
}

TEST(Agree, NestedAgreementKeepsTheMessage) {
  Comm comm(MPI_COMM_WORLD);
  const int bad = comm.size() - 1;
  std::string m;
  int origin = -2;
  try {
    comm.run_collectively([&] { comm.agree(comm.rank() != bad, "inner"); });
  } catch (const slab::InvalidArgument& e) {
    m = e.message(), origin = e.origin_rank();
  }
  EXPECT_EQ(m, "inner");
  EXPECT_EQ(origin, bad);  // kept through the outer agreement
}
