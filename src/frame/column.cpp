#include "slab/frame/column.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "slab/core/error.hpp"

namespace slab::frame {

std::size_t LocalColumn::size() const noexcept {
  switch (type) {
    case ElementType::int64:
    case ElementType::timestamp:
      return ints.size();
    case ElementType::float64:
      return floats.size();
    case ElementType::boolean:
      return bools.size();
    case ElementType::string:
      return strings.size();
    default:  // not a column type: a Schema holds none
      break;
  }
  return 0;
}

bool LocalColumn::is_null(std::size_t row) const {
  if (!valid.empty() && !valid[row]) return true;
  return type == ElementType::float64 && std::isnan(floats[row]);
}

double LocalColumn::as_double(std::size_t row) const {
  if (is_null(row)) return std::numeric_limits<double>::quiet_NaN();
  switch (type) {
    case ElementType::int64:
    case ElementType::timestamp:
      return static_cast<double>(ints[row]);
    case ElementType::float64:
      return floats[row];
    case ElementType::boolean:
      return bools[row];
    case ElementType::string:
      break;
    default:  // not a column type: a Schema holds none
      break;
  }
  SLAB_FAIL(TypeError, "LocalColumn::as_double: string column '" + name + "'");
}

void LocalColumn::push_from(const LocalColumn& other, std::size_t row) {
  std::size_t n = size();
  switch (type) {
    case ElementType::int64:
    case ElementType::timestamp:
      ints.push_back(other.ints[row]);
      break;
    case ElementType::float64:
      floats.push_back(other.floats[row]);
      break;
    case ElementType::boolean:
      bools.push_back(other.bools[row]);
      break;
    case ElementType::string:
      strings.push_back(other.strings[row]);
      break;
    default:  // not a column type: a Schema holds none
      break;
  }
  bool v = other.valid.empty() || other.valid[row];
  if (!valid.empty() || !v) {
    if (valid.empty()) valid.assign(n, 1);
    valid.push_back(v ? 1 : 0);
  }
}

void LocalColumn::reserve(std::size_t n) {
  switch (type) {
    case ElementType::int64:
    case ElementType::timestamp:
      ints.reserve(n);
      break;
    case ElementType::float64:
      floats.reserve(n);
      break;
    case ElementType::boolean:
      bools.reserve(n);
      break;
    case ElementType::string:
      strings.reserve(n);
      break;
    default:  // not a column type: a Schema holds none
      break;
  }
}

LocalColumn LocalColumn::int64(std::string name, std::vector<std::int64_t> v, std::vector<std::uint8_t> valid) {
  LocalColumn c;
  c.name = std::move(name);
  c.type = ElementType::int64;
  c.ints = std::move(v);
  c.valid = std::move(valid);
  return c;
}
LocalColumn LocalColumn::timestamp(std::string name, std::vector<std::int64_t> v, std::vector<std::uint8_t> valid) {
  auto c = int64(std::move(name), std::move(v), std::move(valid));
  c.type = ElementType::timestamp;
  return c;
}
LocalColumn LocalColumn::float64(std::string name, std::vector<double> v, std::vector<std::uint8_t> valid) {
  LocalColumn c;
  c.name = std::move(name);
  c.type = ElementType::float64;
  c.floats = std::move(v);
  c.valid = std::move(valid);
  return c;
}
LocalColumn LocalColumn::boolean(std::string name, std::vector<std::uint8_t> v, std::vector<std::uint8_t> valid) {
  LocalColumn c;
  c.name = std::move(name);
  c.type = ElementType::boolean;
  c.bools = std::move(v);
  c.valid = std::move(valid);
  return c;
}
LocalColumn LocalColumn::string(std::string name, std::vector<std::string> v, std::vector<std::uint8_t> valid) {
  LocalColumn c;
  c.name = std::move(name);
  c.type = ElementType::string;
  c.strings = std::move(v);
  c.valid = std::move(valid);
  return c;
}

std::vector<std::string> LocalTable::names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

const LocalColumn& LocalTable::operator[](std::string_view name) const {
  for (const auto& c : columns)
    if (c.name == name) return c;
  std::string cols;
  for (std::size_t i = 0; i < columns.size(); ++i) cols += (i ? ", " : "") + columns[i].name;
  SLAB_FAIL(InvalidArgument, "unknown column '" + std::string(name) + "' (columns: " + cols + ")");
}
LocalColumn& LocalTable::operator[](std::string_view name) {
  return const_cast<LocalColumn&>(static_cast<const LocalTable&>(*this)[name]);
}

Schema LocalTable::schema() const {
  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  for (const auto& c : columns) {
    fields.push_back({c.name, c.type});
    if (c.type == ElementType::string) {
      std::set<std::string> s;
      for (std::size_t i = 0; i < c.strings.size(); ++i)
        if (c.valid.empty() || c.valid[i]) s.insert(c.strings[i]);
      dicts.push_back(make_dictionary({s.begin(), s.end()}));
    } else {
      dicts.push_back(nullptr);
    }
  }
  return Schema(std::move(fields), std::move(dicts));
}

LocalTable LocalTable::slice(std::int64_t begin, std::int64_t end) const {
  begin = std::clamp<std::int64_t>(begin, 0, nrows());
  end = std::clamp<std::int64_t>(end, begin, nrows());
  LocalTable out;
  for (const auto& c : columns) {
    LocalColumn o;
    o.name = c.name;
    o.type = c.type;
    for (auto r = begin; r < end; ++r) o.push_from(c, static_cast<std::size_t>(r));
    out.columns.push_back(std::move(o));
  }
  if (!index.empty()) out.index.assign(index.begin() + begin, index.begin() + end);
  if (!labels.empty()) out.labels.assign(labels.begin() + begin, labels.begin() + end);
  return out;
}

LocalTable concat(const std::vector<LocalTable>& tables) {
  LocalTable out;
  if (tables.empty()) return out;
  for (const auto& c : tables.front().columns) {
    LocalColumn o;
    o.name = c.name;
    o.type = c.type;
    out.columns.push_back(std::move(o));
  }
  bool any_index = false;
  for (const auto& t : tables) any_index |= !t.index.empty();
  for (const auto& t : tables) {
    SLAB_EXPECTS(t.columns.size() == out.columns.size(), ShapeError, "concat: tables with different columns");
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      SLAB_EXPECTS(t.columns[c].type == out.columns[c].type, TypeError, "concat: column types differ");
      for (std::size_t r = 0; r < t.columns[c].size(); ++r) out.columns[c].push_from(t.columns[c], r);
    }
    if (any_index) {
      if (t.index.empty()) {
        std::int64_t base = out.index.empty() ? 0 : out.index.back() + 1;
        for (std::int64_t r = 0; r < t.nrows(); ++r) out.index.push_back(base + r);
      } else {
        out.index.insert(out.index.end(), t.index.begin(), t.index.end());
      }
    }
  }
  return out;
}

}  // namespace slab::frame
