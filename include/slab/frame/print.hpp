#pragma once
/// @file print.hpp
/// @brief Printing frames like pandas. to_string(LocalTable) is declared in column.hpp.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "slab/frame/column.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame {

/// The frame printed like pandas: the first and last max_rows/2 rows (or all when short), then
/// "[N rows x M columns]". Collective (result on every rank).
[[nodiscard]] std::string to_string(const Frame& frame, std::int64_t max_rows = 60);

/// One value of a host column as pandas prints it ("NaN" for null floats, "<NA>" for others, "NaT" for
/// timestamps, floats with 6 significant digits). Not collective.
[[nodiscard]] std::string format_value(const LocalColumn& column, std::size_t row);

/**
 * @brief `std::cout << df`: to_string(df) (pandas' repr: the first and last rows, "[N rows x M columns]";
 * widths count UTF-8 characters, not bytes), written by rank 0 only: other ranks write nothing to `os`.
 * Collective: every rank must call it, in the same order as its other collectives.
 */
std::ostream& operator<<(std::ostream& os, const Frame& frame);
/// `os << table`: to_string(table) on the calling rank (a LocalTable is a host value). Not collective.
std::ostream& operator<<(std::ostream& os, const LocalTable& table);

}  // namespace slab::frame
