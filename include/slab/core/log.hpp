#pragma once
/// @file log.hpp
/// @brief Rank-aware logging: messages go to stderr prefixed with the rank; `info` prints on rank 0 only.

#include <string>
#include <string_view>

namespace slab {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

/// @throws InvalidArgument naming `what` when `text` is not one of error, warn, info, debug.
LogLevel parse_log_level(std::string_view text, std::string_view what);
std::string_view to_string(LogLevel level) noexcept;

/// Set the process-wide log threshold (the Runtime does this from --log-level / SLAB_LOG_LEVEL).
void set_log_level(LogLevel level) noexcept;
LogLevel log_level() noexcept;

/// Not collective. Messages at or below the threshold are written to stderr as "[slab r/n level] text".
/// `info` and `debug` print on rank 0 only unless `all_ranks` is set; warnings and errors print on every rank.
void log(LogLevel level, std::string_view message, bool all_ranks = false);

}  // namespace slab
