#include "slab/core/log.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "slab/core/error.hpp"

namespace slab {

namespace {
std::atomic<LogLevel> g_level{LogLevel::warn};
}

LogLevel parse_log_level(std::string_view text, std::string_view what) {
  if (text == "error") return LogLevel::error;
  if (text == "warn" || text == "warning") return LogLevel::warn;
  if (text == "info") return LogLevel::info;
  if (text == "debug") return LogLevel::debug;
  SLAB_FAIL(InvalidArgument,
            std::string(what) + ": '" + std::string(text) + "' is not a log level (one of error, warn, info, debug)");
}

std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::error:
      return "error";
    case LogLevel::warn:
      return "warn";
    case LogLevel::info:
      return "info";
    case LogLevel::debug:
      return "debug";
  }
  return "?";
}

void set_log_level(LogLevel level) noexcept { g_level = level; }
LogLevel log_level() noexcept { return g_level; }

void log(LogLevel level, std::string_view message, bool all_ranks) {
  if (static_cast<int>(level) > static_cast<int>(g_level.load())) return;
  const int rank = detail::world_rank_or_minus_one();
  if (level >= LogLevel::info && !all_ranks && rank > 0) return;
  int size = 1;
  if (rank >= 0) MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::fprintf(stderr, "[slab %d/%d %s] %.*s\n", rank, size, to_string(level).data(), static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
}

}  // namespace slab
