#pragma once
/// @file datasets.hpp
/// @brief Generated frames. Values depend only on the global row index (counter-based hash), never on the
/// rank count or partitioning. All lazy: one task per partition, partitions dealt to ranks in contiguous
/// balanced blocks. Not collective.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "slab/frame/frame.hpp"

namespace slab::frame {

/// The NAMES list of ../shared/WORKLOADS.md (dask.datasets.timeseries), index 0..25.
inline constexpr std::array<std::string_view, 26> kNames = {
    "Alice", "Bob",   "Charlie", "Dan",     "Edith",   "Frank",  "George",   "Hannah", "Ingrid",
    "Jerry", "Kevin", "Laura",   "Michael", "Norbert", "Oliver", "Patricia", "Quinn",  "Ray",
    "Sarah", "Tim",   "Ursula",  "Victor",  "Wendy",   "Xavier", "Yvonne",   "Zelda"};

/// Parse "2000-01-01", "2000-01-01T12:30:00" or "2000-01-01 12:30:00" (UTC) to ns since the epoch.
/// @throws InvalidArgument for anything else.
[[nodiscard]] std::int64_t parse_timestamp(std::string_view text);
/// Parse a frequency: "1s", "30s", "1min", "5T", "1h", "1H", "1D", "100ms", "1us", "1ns" -> ns.
[[nodiscard]] std::int64_t parse_freq(std::string_view text);
/// "2000-01-01 00:00:00" (with ".fffffffff" when sub-second).
[[nodiscard]] std::string format_timestamp(std::int64_t ns);

namespace datasets {

/**
 * @brief Like dask.datasets.timeseries: one row per `freq` in [start, end); columns timestamp (timestamp),
 * id (int64), name (string, kNames), x, y (float64 in [-1, 1)). For global row r, with s0 = 100 + 4 * (seed mod
 * 1000): id = 950 + h(s0, r) mod 101 (dask draws Poisson(1000)), name = kNames[h(s0+1, r) mod 26],
 * x = 2*U(s0+2, r) - 1, y = 2*U(s0+3, r) - 1.
 * Partitions of partition_freq each.
 */
[[nodiscard]] Frame timeseries(TaskQueue& queue, std::string_view start = "2000-01-01",
                               std::string_view end = "2000-01-31", std::string_view freq = "1s",
                               std::uint64_t seed = 0, std::string_view partition_freq = "1D");

/// W3: rows r = 0..n-1: id = h(3,r) mod 1000, name = NAMES[h(4,r) mod 26], x = 2U(5,r)-1, y = 2U(6,r)-1.
[[nodiscard]] Frame w3(TaskQueue& queue, std::int64_t n = 20'000'000, std::int64_t rows_per_partition = 1'000'000);
/// W4 left: key = h(7,r) mod 2,000,000, value = U(8,r).
[[nodiscard]] Frame w4_left(TaskQueue& queue, std::int64_t n = 20'000'000, std::int64_t rows_per_partition = 1'000'000);
/// W4 right: key = (q * 1,000,003) mod m (m = 2,000,000 by default), value2 = U(9,q).
[[nodiscard]] Frame w4_right(TaskQueue& queue, std::int64_t m = 2'000'000, std::int64_t rows_per_partition = 500'000);
/// W5: t (timestamp) = 2000-01-01 + r seconds, v = U(10,r).
[[nodiscard]] Frame w5(TaskQueue& queue, std::int64_t n = 20'000'000, std::int64_t rows_per_partition = 1'000'000);

/**
 * @brief A frame of `nrows` rows whose partition p (global, of rows_per_partition rows) is written by
 * fill(first_row, nrows, builder). Partitions are dealt to ranks in balanced contiguous blocks. Lazy.
 */
[[nodiscard]] Frame generate(TaskQueue& queue, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition,
                             std::string name, std::function<void(std::int64_t first_row, BatchBuilder& out)> fill);

}  // namespace datasets
}  // namespace slab::frame
