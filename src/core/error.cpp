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

Error::Error(std::string message, const char* file, int line)
    : std::runtime_error(message),
      message_(std::move(message)),
      file_(file ? file : "?"),
      line_(line),
      rank_(detail::world_rank_or_minus_one()),
      origin_rank_(rank_) {
  format_what();
}

void Error::set_origin(int origin_rank, std::vector<int> also_failed, std::string file, int line) {
  origin_rank_ = origin_rank;
  also_failed_ = std::move(also_failed);
  file_ = std::move(file);
  line_ = line;
  format_what();
}

void Error::format_what() {
  std::string base = file_;
  if (auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  what_ = message_ + " (rank " + std::to_string(origin_rank_) + ", " + base + ":" + std::to_string(line_);
  if (!also_failed_.empty()) {
    what_ += also_failed_.size() > 1 ? "; also failed on ranks " : "; also failed on rank ";
    for (std::size_t i = 0; i < also_failed_.size(); ++i) what_ += (i ? ", " : "") + std::to_string(also_failed_[i]);
  }
  what_ += ")";
}

}  // namespace slab
