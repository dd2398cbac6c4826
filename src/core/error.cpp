#include "slab/core/error.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace slab {

namespace detail {

int world_rank_or_minus_one() noexcept {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

namespace {
std::atomic<FatalCleanup> g_fatal_cleanup{nullptr};
}

void set_fatal_cleanup(FatalCleanup cleanup) noexcept { g_fatal_cleanup.store(cleanup); }

void run_fatal_cleanup() noexcept {
  if (const FatalCleanup cleanup = g_fatal_cleanup.load()) cleanup();
}

void fatal(std::string_view message, const char* file, int line) noexcept {
  std::fprintf(stderr, "slab fatal error (rank %d, %s:%d): %.*s\n", world_rank_or_minus_one(), file, line,
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  run_fatal_cleanup();
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

}  // namespace detail

namespace {
std::string with_location(const std::string& message, const char* file, int line, int rank) {
  std::string base = file ? file : "?";
  if (auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  return message + " (rank " + std::to_string(rank) + ", " + base + ":" + std::to_string(line) + ")";
}
}  // namespace

Error::Error(std::string message, const char* file, int line)
    : std::runtime_error(with_location(message, file, line, detail::world_rank_or_minus_one())),
      message_(std::move(message)),
      file_(file),
      line_(line),
      rank_(detail::world_rank_or_minus_one()) {}

}  // namespace slab
