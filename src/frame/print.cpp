#include "slab/frame/print.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "slab/core/time.hpp"
#include "slab/frame/ops.hpp"

namespace slab::frame {

namespace {

// Display width in characters (UTF-8 code points), as pandas counts str's len: a multi-byte name must not
// shift the columns after it.
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0u) != 0x80u ? 1 : 0;
  return n;
}
bool fixed_ok(const LocalColumn& c) {
  for (std::size_t i = 0; i < c.floats.size(); ++i) {
    if (c.is_null(i)) continue;
    double a = std::fabs(c.floats[i]);
    if (std::isinf(a) || (a != 0 && (a < 1e-4 || a >= 1e15))) return false;
  }
  return true;
}
std::string format_float(double v, bool fixed) {
  char buf[64];
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::snprintf(buf, sizeof buf, fixed ? "%.6f" : "%.6e", v);
  return buf;
}
std::string format_cell(const LocalColumn& c, std::size_t row, bool fixed) {
  if (c.is_null(row)) {
    switch (c.type) {
      case ElementType::float64:
        return "NaN";
      case ElementType::timestamp:
        return "NaT";
      case ElementType::string:
        return "NaN";
      default:
        return "<NA>";
    }
  }
  switch (c.type) {
    case ElementType::int64:
      return std::to_string(c.ints[row]);
    case ElementType::timestamp:
      return format_timestamp(c.ints[row]);
    case ElementType::float64:
      return format_float(c.floats[row], fixed);
    case ElementType::boolean:
      return c.bools[row] ? "True" : "False";
    case ElementType::string:
      return c.strings[row];
    default:  // not a column type: a Schema holds none
      break;
  }
  return "";
}
}  // namespace

std::string format_value(const LocalColumn& column, std::size_t row) {
  return format_cell(column, row, column.type != ElementType::float64 || fixed_ok(column));
}

std::string to_string(const LocalTable& table, std::int64_t max_rows) {
  std::int64_t n = table.nrows();
  std::vector<std::int64_t> rows;
  bool truncated = max_rows > 0 && n > max_rows;
  if (truncated) {
    std::int64_t half = std::max<std::int64_t>(max_rows / 2, 1);
    for (std::int64_t r = 0; r < half; ++r) rows.push_back(r);
    rows.push_back(-1);
    for (std::int64_t r = n - half; r < n; ++r) rows.push_back(r);
  } else {
    for (std::int64_t r = 0; r < n; ++r) rows.push_back(r);
  }
  // Cells: column 0 is the index.
  std::vector<std::vector<std::string>> cells(table.columns.size() + 1);
  cells[0].push_back("");
  for (auto r : rows) {
    if (r < 0)
      cells[0].push_back("...");
    else if (!table.labels.empty())
      cells[0].push_back(table.labels[static_cast<std::size_t>(r)]);
    else
      cells[0].push_back(std::to_string(table.index.empty() ? r : table.index[static_cast<std::size_t>(r)]));
  }
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const auto& col = table.columns[c];
    bool fixed = col.type != ElementType::float64 || fixed_ok(col);
    auto& out = cells[c + 1];
    out.push_back(col.name);
    for (auto r : rows) out.push_back(r < 0 ? "..." : format_cell(col, static_cast<std::size_t>(r), fixed));
  }
  std::vector<std::size_t> width(cells.size(), 0);
  for (std::size_t c = 0; c < cells.size(); ++c)
    for (const auto& s : cells[c]) width[c] = std::max(width[c], display_width(s));
  std::string text;
  for (std::size_t line = 0; line < cells[0].size(); ++line) {
    std::string l;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto& s = cells[c][line];
      if (c == 0) {
        l += s + std::string(width[0] - display_width(s), ' ');  // index left-aligned
      } else {
        l += "  " + std::string(width[c] - display_width(s), ' ') + s;
      }
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    text += l + "\n";
  }
  if (truncated || table.columns.empty())
    text += "\n[" + std::to_string(n) + " rows x " + std::to_string(table.columns.size()) + " columns]\n";
  return text;
}

std::string to_string(const Frame& frame, std::int64_t max_rows) {
  std::int64_t n = frame.len();
  if (max_rows <= 0 || n <= max_rows) return to_string(frame.gather_all(), max_rows);
  std::int64_t half = std::max<std::int64_t>(max_rows / 2, 1);
  LocalTable t = concat({head(frame, half), tail(frame, half)});
  std::string text = to_string(t, 0);
  // Insert the "..." marker row after the head rows.
  std::size_t pos = 0;
  for (std::int64_t i = 0; i <= half; ++i) pos = text.find('\n', pos) + 1;
  text.insert(pos, "...\n");
  return text + "\n[" + std::to_string(n) + " rows x " + std::to_string(frame.schema().size()) + " columns]\n";
}

std::ostream& operator<<(std::ostream& os, const Frame& frame) {
  std::string text = to_string(frame);
  if (frame.engine().comm().rank() == 0) os << text;
  return os;
}

std::ostream& operator<<(std::ostream& os, const LocalTable& table) { return os << to_string(table); }

}  // namespace slab::frame
