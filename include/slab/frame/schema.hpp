#pragma once
/// @file schema.hpp
/// @brief Field and Schema: the column names and types of a Frame, plus the replicated
/// dictionaries of its string columns. Nothing here is collective.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slab/core/element_type.hpp"

namespace slab::frame {

using slab::ElementType;  // a column's type (one of its column types)
using slab::to_string;    // a column type's name, as frame::to_string(type) in messages

/// Whether one of the column types (int64, float64, boolean, timestamp, string).
[[nodiscard]] constexpr bool is_column_type(ElementType type) noexcept {
  return static_cast<std::uint8_t>(type) <= static_cast<std::uint8_t>(ElementType::string);
}

/// Whether int64, float64 or timestamp (columns describe/cumsum work on).
[[nodiscard]] constexpr bool is_numeric(ElementType type) noexcept {
  return type == ElementType::int64 || type == ElementType::float64 || type == ElementType::timestamp;
}

/// A string column's dictionary: sorted, unique, identical on every rank. Codes index into it.
using Dictionary = std::shared_ptr<const std::vector<std::string>>;

/// A column: its name and type, one of ElementType's column types: int64, float64, boolean, timestamp (int64 ns
/// since 1970-01-01 UTC) or string (int32 codes into the schema's sorted dictionary for it, -1 = null).
struct Field {
  std::string name;
  ElementType type = ElementType::float64;
  friend bool operator==(const Field&, const Field&) = default;
};

/**
 * @brief The ordered columns of a frame. Each string column has a dictionary (never null for string
 * columns: an empty dictionary by default); other columns have none (null).
 */
class Schema {
 public:
  Schema() = default;
  /// @throws InvalidArgument on duplicate names or a dictionaries list of the wrong length.
  explicit Schema(std::vector<Field> fields, std::vector<Dictionary> dictionaries = {});

  [[nodiscard]] std::size_t size() const noexcept { return fields_.size(); }
  [[nodiscard]] std::size_t num_columns() const noexcept { return fields_.size(); }
  [[nodiscard]] const std::vector<Field>& fields() const noexcept { return fields_; }
  [[nodiscard]] const Field& field(std::size_t i) const { return fields_.at(i); }
  [[nodiscard]] const std::string& name(std::size_t i) const { return fields_.at(i).name; }
  [[nodiscard]] ElementType type(std::size_t i) const { return fields_.at(i).type; }
  [[nodiscard]] std::vector<std::string> names() const;
  /// @throws InvalidArgument "unknown column 'x' (columns: a, b, c)".
  [[nodiscard]] std::size_t index_of(std::string_view name) const;
  [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const noexcept;
  [[nodiscard]] bool contains(std::string_view name) const noexcept { return find(name).has_value(); }

  /// Column i's dictionary (null unless a string column).
  [[nodiscard]] const Dictionary& dictionary(std::size_t i) const { return dictionaries_.at(i); }
  /// Set column i's dictionary (must be sorted and unique, the same on every rank).
  void set_dictionary(std::size_t i, Dictionary dictionary);
  /// The code of `value` in column i's dictionary, or -1 when absent.
  [[nodiscard]] std::int32_t code_of(std::size_t i, std::string_view value) const;

  /// Append a column, or replace the column of that name (keeping its position).
  [[nodiscard]] Schema with_column(Field field, Dictionary dictionary = nullptr) const;
  /// The named columns in the given order. @throws InvalidArgument for unknown names.
  [[nodiscard]] Schema select(const std::vector<std::string>& names) const;
  /// Indices of the named columns. @throws InvalidArgument for unknown names.
  [[nodiscard]] std::vector<std::size_t> indices_of(const std::vector<std::string>& names) const;

  /// "a: int64, b: string" for messages.
  [[nodiscard]] std::string to_string() const;
  /// Same fields and the same dictionary contents.
  friend bool operator==(const Schema& a, const Schema& b);

 private:
  std::vector<Field> fields_;
  std::vector<Dictionary> dictionaries_;
};

/// A shared dictionary from sorted unique strings.
[[nodiscard]] Dictionary make_dictionary(std::vector<std::string> sorted_unique);

}  // namespace slab::frame
