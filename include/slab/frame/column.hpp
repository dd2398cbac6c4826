#pragma once
/// @file column.hpp
/// @brief LocalColumn and LocalTable: a simple host columnar table (vectors per column + validity), used for
/// gathered results, small replicated results (describe, value_counts), tests and printing. Not collective.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "slab/frame/schema.hpp"

namespace slab::frame {

/// One host column. Exactly one value vector is used, by type: ints (int64, timestamp), floats (float64),
/// bools (boolean), strings (string; decoded, "" where null). valid: empty = all valid, else one 0/1 per row.
struct LocalColumn {
  std::string name;
  ElementType type = ElementType::float64;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::uint8_t> bools;
  std::vector<std::string> strings;
  std::vector<std::uint8_t> valid;

  [[nodiscard]] std::size_t size() const noexcept;
  /// Null like pandas: masked out or NaN (float64).
  [[nodiscard]] bool is_null(std::size_t row) const;
  /// Value as double (int64/timestamp/float64/bool); NaN when null.
  [[nodiscard]] double as_double(std::size_t row) const;
  /// Append row `row` of `other` (same type).
  void push_from(const LocalColumn& other, std::size_t row);
  void reserve(std::size_t n);

  static LocalColumn int64(std::string name, std::vector<std::int64_t> v, std::vector<std::uint8_t> valid = {});
  static LocalColumn timestamp(std::string name, std::vector<std::int64_t> v, std::vector<std::uint8_t> valid = {});
  static LocalColumn float64(std::string name, std::vector<double> v, std::vector<std::uint8_t> valid = {});
  static LocalColumn boolean(std::string name, std::vector<std::uint8_t> v, std::vector<std::uint8_t> valid = {});
  static LocalColumn string(std::string name, std::vector<std::string> v, std::vector<std::uint8_t> valid = {});
  friend bool operator==(const LocalColumn&, const LocalColumn&) = default;
};

/// Host table. `index`: row labels for printing (empty = 0..n-1); `labels`: string row labels instead
/// (describe's "count", "mean", ...), used when non-empty.
struct LocalTable {
  std::vector<LocalColumn> columns;
  std::vector<std::int64_t> index;
  std::vector<std::string> labels;

  [[nodiscard]] std::int64_t nrows() const noexcept {
    return columns.empty() ? 0 : static_cast<std::int64_t>(columns.front().size());
  }
  [[nodiscard]] std::size_t ncols() const noexcept { return columns.size(); }
  [[nodiscard]] std::vector<std::string> names() const;
  /// @throws InvalidArgument for an unknown column.
  [[nodiscard]] const LocalColumn& operator[](std::string_view name) const;
  [[nodiscard]] LocalColumn& operator[](std::string_view name);
  LocalTable& add(LocalColumn column) {
    columns.push_back(std::move(column));
    return *this;
  }
  /// Fields (dictionaries: this table's own sorted distinct strings).
  [[nodiscard]] Schema schema() const;
  /// Rows [begin, end) (index kept).
  [[nodiscard]] LocalTable slice(std::int64_t begin, std::int64_t end) const;
  friend bool operator==(const LocalTable&, const LocalTable&) = default;
};

/// Tables with the same columns stacked (index concatenated).
[[nodiscard]] LocalTable concat(const std::vector<LocalTable>& tables);

/**
 * @brief Print like pandas: a header of column names, one line per row with the index (or labels) on the
 * left, right-aligned columns, floats with 6 significant digits, nulls as NaN/<NA>/NaT; with more than
 * max_rows rows, the first and last max_rows/2 separated by "..." and followed by "[N rows x M columns]".
 */
[[nodiscard]] std::string to_string(const LocalTable& table, std::int64_t max_rows = 60);

}  // namespace slab::frame
