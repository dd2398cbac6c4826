#include <gtest/gtest.h>
#include <mpi.h>

#include "slab/core/error.hpp"

TEST(Error, CarriesRankLocationAndKind) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    SLAB_FAIL(slab::ShapeError, "matmul: (3, 4) x (5, 6)");
  } catch (const slab::Error& e) {
    EXPECT_EQ(e.message(), "matmul: (3, 4) x (5, 6)");
    EXPECT_EQ(e.rank(), rank);
    EXPECT_STREQ(e.kind(), "ShapeError");
    EXPECT_NE(std::string(e.what()).find("test_error.cpp:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(rank)), std::string::npos) << e.what();
  }
}

TEST(Error, ExpectsThrowsOnlyOnFailure) {
  EXPECT_NO_THROW(SLAB_EXPECTS(1 + 1 == 2, slab::InvalidArgument, "never"));
  EXPECT_THROW(SLAB_EXPECTS(1 + 1 == 3, slab::InvalidArgument, "always"), slab::InvalidArgument);
}
