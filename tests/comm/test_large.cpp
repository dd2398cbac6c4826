// A real transfer of just over 2^31 bytes (beyond MPI-3's int count) through bcast and send/recv, with the
// default 1 GiB pieces. Needs about 2 GiB per rank; registered at 2 ranks only.
#include <gtest/gtest.h>

#include <vector>

#include "slab/comm/comm.hpp"

TEST(CommLarge, OverTwoGiBBytes) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::size_t n = (std::size_t{1} << 31) + 8;
  std::vector<char> buf;
  bool alloc_ok = true;
  try {
    buf.resize(n, comm.rank() == 0 ? 'x' : 0);
  } catch (const std::bad_alloc&) {
    alloc_ok = false;
  }
  comm.agree(alloc_ok, "cannot allocate 2 GiB");
  if (comm.rank() == 0) {
    buf[0] = 'a';
    buf[n / 2] = 'b';
    buf[n - 1] = 'c';
  }
  comm.bcast(std::span<char>(buf), 0);
  EXPECT_EQ(buf[0], 'a');
  EXPECT_EQ(buf[n / 2], 'b');
  EXPECT_EQ(buf[n - 1], 'c');
  EXPECT_EQ(buf[n - 2], 'x');
  if (comm.size() >= 2 && comm.rank() < 2) {
    if (comm.rank() == 0) {
      buf[n - 1] = 'z';
      comm.send(std::span<const char>(buf), 1, 3);
    } else {
      buf[n - 1] = 0;
      comm.recv(std::span<char>(buf), 0, 3);
      EXPECT_EQ(buf[n - 1], 'z');
      EXPECT_EQ(buf[(std::size_t{1} << 30) + 5], 'x');
    }
  }
}
