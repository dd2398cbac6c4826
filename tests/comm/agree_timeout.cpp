// The last rank fails and agrees while the other ranks wait in their own MPI_Barrier on MPI_COMM_WORLD,
// where no agreement reaches them: the failing rank must end the job after SLAB_AGREE_TIMEOUT seconds
// (the test sets 2) with a message saying so, instead of hanging. Run by ctest, which checks that message.
#include <mpi.h>

#include "comm_test_util.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    slab::Comm comm(MPI_COMM_WORLD);
    if (comm.rank() == comm.size() - 1) {
      slab_test::fail_alone_and_agree(comm);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);  // a user's own collective: never an agreement point
    }
  }
  MPI_Finalize();
  return 0;
}
