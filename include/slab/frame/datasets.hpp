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
#include <vector>

#include "slab/frame/column_recipe.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame {

/// The NAMES list of docs/WORKLOADS.md (dask.datasets.timeseries), index 0..25.
inline constexpr std::array<std::string_view, 26> kNames = {
    "Alice", "Bob",   "Charlie", "Dan",     "Edith",   "Frank",  "George",   "Hannah", "Ingrid",
    "Jerry", "Kevin", "Laura",   "Michael", "Norbert", "Oliver", "Patricia", "Quinn",  "Ray",
    "Sarah", "Tim",   "Ursula",  "Victor",  "Wendy",   "Xavier", "Yvonne",   "Zelda"};

/// kNames as the (sorted) dictionary of a string column.
[[nodiscard]] Dictionary names_dictionary();

/**
 * @brief Like dask.datasets.timeseries: one row per `freq` in [start, end); columns timestamp (timestamp),
 * id (int64), name (string, kNames), x, y (float64 in [-1, 1)). For global row r, with s0 = 100 + 4 * (seed mod
 * 1000): id = 950 + h(s0, r) mod 101 (dask draws Poisson(1000)), name = kNames[h(s0+1, r) mod 26],
 * x = 2*U(s0+2, r) - 1, y = 2*U(s0+3, r) - 1.
 * Partitions of partition_freq each.
 */
[[nodiscard]] Frame timeseries(Engine& engine, std::string_view start = "2000-01-01",
                               std::string_view end = "2000-01-31", std::string_view freq = "1s",
                               std::uint64_t seed = 0, std::string_view partition_freq = "1D");

/**
 * @brief A frame of `nrows` rows whose partition p (global, of rows_per_partition rows) is written by
 * fill(first_row, nrows, builder). Partitions are dealt to ranks in balanced contiguous blocks. Lazy.
 */
[[nodiscard]] Frame generate(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition,
                             std::string name, std::function<void(std::int64_t first_row, BatchBuilder& out)> fill);

/**
 * @brief generate() with one ColumnRecipe per column of `schema` instead of a fill function: the same partitions,
 * and the values the recipes say (column_recipe.hpp). Where the rank takes device paths the partitions are made by
 * the device kernels, bitwise the host's values; a fill function is always a host loop (a recorded fallback there).
 * Lazy. @throws InvalidArgument (a recipe count other than the columns', a modulus of 0, string codes or booleans
 * out of their range) or TypeError (a recipe that does not fit its column's type), naming the column.
 */
[[nodiscard]] Frame generate(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition,
                             std::string name, std::vector<ColumnRecipe> columns);

}  // namespace slab::frame
