#pragma once
/// @file time.hpp
/// @brief Timestamps, durations and frequencies: the one place slab parses and prints them (CSV inference,
/// generated time series, rolling windows, resampling, printing). Timestamps are int64 nanoseconds since
/// 1970-01-01 UTC (pandas' datetime64[ns]); durations are int64 nanoseconds. Nothing here is collective.

#include <cstdint>
#include <string>
#include <string_view>

namespace slab {

inline constexpr std::int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr std::int64_t kNanosPerDay = 86'400 * kNanosPerSecond;

/// Days since 1970-01-01 of the proleptic Gregorian date y-m-d (Howard Hinnant's days_from_civil).
[[nodiscard]] constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// The date of day `days` since 1970-01-01 (Howard Hinnant's civil_from_days).
void civil_from_days(std::int64_t days, std::int64_t& y, unsigned& m, unsigned& d) noexcept;

/**
 * @brief Parse an ISO-8601 timestamp "YYYY-MM-DD[( |T)HH:MM[:SS[.f...]]][Z|+HH[:MM]|-HH[:MM]]" (an offset is
 * applied, giving UTC) to nanoseconds since the epoch. False when malformed or outside what int64 nanoseconds
 * hold (about years 1677-2262, pandas' Timestamp bounds).
 */
[[nodiscard]] bool parse_timestamp(std::string_view text, std::int64_t& ns) noexcept;
/// The same. @throws InvalidArgument "cannot parse '<text>' as a timestamp (...)".
[[nodiscard]] std::int64_t parse_timestamp(std::string_view text);

/// "2000-01-01 00:00:00", with ".fffffffff" when there is a fraction of a second (pandas' Timestamp text).
[[nodiscard]] std::string format_timestamp(std::int64_t ns);

/**
 * @brief Parse a duration or frequency, a number (fractions allowed: "1.5h") then a unit (pandas' offset
 * aliases): ns/N, us/U, ms/L, s/S, min/T, h/H, d/D; "1h" = 3,600,000,000,000; a unit alone is one of it ("h").
 * A number alone is not a duration.
 * False when malformed, not positive, or beyond int64 nanoseconds.
 */
[[nodiscard]] bool parse_duration(std::string_view text, std::int64_t& ns) noexcept;
/// The same. @throws InvalidArgument "<what>: cannot parse '<text>' as a duration (e.g. 1h, 30min, 15s, ...)".
[[nodiscard]] std::int64_t parse_duration(std::string_view text, std::string_view what);

/// The duration in the largest unit that divides it exactly: "1h", "30min", "90s", "1500ms", "1d", "7ns".
[[nodiscard]] std::string format_duration(std::int64_t ns);

}  // namespace slab
