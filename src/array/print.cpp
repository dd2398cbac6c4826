// NumPy-like repr of arrays (print.hpp): numpy's "maxprec" float mode (up to 8 decimals, unique digits, decimal
// points aligned), scientific notation for very large or small magnitudes, summarised past `threshold`.
#include "slab/array/print.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/element_type.hpp"

namespace slab {

namespace {

constexpr std::size_t kLineWidth = 75;  // numpy's linewidth

std::string strip_zeros(std::string s) {
  // "2.50000000" -> "2.5", "1.00000000" -> "1." (numpy keeps the point).
  auto dot = s.find('.');
  if (dot == std::string::npos) return s;
  auto last = s.find_last_not_of('0');
  s.erase(std::max(last, dot) + 1);
  return s;
}

// Formats float values numpy's way: decimal points aligned; each cell padded to one width.
std::vector<std::string> format_floats(const std::vector<double>& v) {
  double max_abs = 0, min_abs = INFINITY;
  for (double x : v)
    if (std::isfinite(x)) {
      max_abs = std::max(max_abs, std::fabs(x));
      if (x != 0) min_abs = std::min(min_abs, std::fabs(x));
    }
  bool sci = max_abs >= 1e8 || (std::isfinite(min_abs) && (min_abs < 1e-4 || max_abs / min_abs > 1e3));
  std::vector<std::string> mant(v.size()), exp(v.size());
  std::size_t left = 0, right = 0, exp_w = 0;
  char buf[64];
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    if (!std::isfinite(x)) continue;
    std::string s;
    if (sci) {
      std::snprintf(buf, sizeof buf, "%.8e", x);
      s = buf;
      auto e = s.find('e');
      exp[i] = s.substr(e);
      s = strip_zeros(s.substr(0, e));
      exp_w = std::max(exp_w, exp[i].size());
    } else {
      std::snprintf(buf, sizeof buf, "%.8f", x);
      s = strip_zeros(buf);
    }
    auto dot = s.find('.');
    left = std::max(left, dot);
    right = std::max(right, s.size() - dot - 1);
    mant[i] = s;
  }
  if (sci) right = std::max<std::size_t>(right, 1);
  std::vector<std::string> out(v.size());
  std::size_t width = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    if (std::isnan(x)) {
      out[i] = "nan";
    } else if (std::isinf(x)) {
      out[i] = x > 0 ? "inf" : "-inf";
    } else {
      const std::string& s = mant[i];
      auto dot = s.find('.');
      std::string frac = s.substr(dot + 1);
      if (sci) frac.resize(right, '0');  // numpy pads scientific mantissas with zeros
      out[i] = std::string(left - dot, ' ') + s.substr(0, dot + 1) + frac;
      if (sci)
        out[i] += exp[i];
      else
        out[i] += std::string(right - frac.size(), ' ');
    }
    width = std::max(width, out[i].size());
  }
  for (auto& s : out) s = std::string(width - s.size(), ' ') + s;
  return out;
}

template <class T>
std::vector<std::string> format_values(const std::vector<T>& v) {
  if constexpr (std::is_integral_v<T>) {
    std::vector<std::string> out;
    std::size_t width = 0;
    for (auto x : v) {
      out.push_back(std::to_string(x));
      width = std::max(width, out.back().size());
    }
    for (auto& s : out) s = std::string(width - s.size(), ' ') + s;
    return out;
  } else {
    return format_floats(std::vector<double>(v.begin(), v.end()));
  }
}

// One bracketed row "[a, b, ..., z]" wrapped at the line width, continuation lines indented by `indent`.
std::string format_row(const std::vector<std::string>& cells, std::int64_t gap_at, std::size_t indent,
                       std::size_t closing) {
  std::string text = "[";
  std::size_t line = indent + 1;
  for (std::size_t j = 0; j < cells.size(); ++j) {
    std::vector<std::string> items;
    if (static_cast<std::int64_t>(j) == gap_at) items.push_back("...");
    items.push_back(cells[j]);
    for (const auto& item : items) {
      bool first = text.size() == 1;
      std::size_t need = item.size() + (first ? 0 : 2) + (j + 1 == cells.size() ? closing : 1);
      if (!first) {
        if (line + need > kLineWidth) {
          text += ",\n" + std::string(indent + 1, ' ');
          line = indent + 1;
        } else {
          text += ", ";
          line += 2;
        }
      }
      text += item;
      line += item.size();
    }
  }
  return text + "]";
}

}  // namespace

template <class T>
std::string to_string(const Array<T>& a, std::int64_t threshold, std::int64_t edgeitems) {
  const std::int64_t m = a.rows();
  const bool one_d = a.ndim() == 1;
  const char* dtype = to_string(element_type_v<T>);
  // NumPy names the dtype in the repr unless it is the default float64 or int64.
  const bool named = std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>;
  std::string suffix = named ? std::string(", dtype=") + dtype : std::string();
  if (a.size() == 0) {
    std::string shape = one_d ? "" : "shape=(" + std::to_string(m) + ", " + std::to_string(a.cols()) + "), ";
    return "array([], " + shape + "dtype=" + dtype + ")";
  }
  const bool summarise = a.size() > threshold;
  const std::int64_t rows = one_d ? 1 : m;
  const std::int64_t cols = one_d ? m : a.cols();
  // The displayed rows (global indices) and columns.
  std::vector<std::int64_t> row_ids, col_ids;
  auto pick = [&](std::int64_t count, std::vector<std::int64_t>& ids) {
    if (summarise && count > 2 * edgeitems) {
      for (std::int64_t i = 0; i < edgeitems; ++i) ids.push_back(i);
      for (std::int64_t i = count - edgeitems; i < count; ++i) ids.push_back(i);
    } else {
      for (std::int64_t i = 0; i < count; ++i) ids.push_back(i);
    }
  };
  pick(rows, row_ids);
  pick(cols, col_ids);
  // Gather only the displayed rows: all of them, or the first and last edgeitems (two row ranges).
  std::vector<T> values;  // row_ids.size() x cols (2-D) or the displayed elements' range (1-D)
  if (one_d) {
    if (col_ids.size() == static_cast<std::size_t>(cols)) {
      values = a.gather_all();
    } else {
      values = row_range(a, 0, edgeitems).gather_all();
      auto tail = row_range(a, m - edgeitems, m).gather_all();
      values.insert(values.end(), tail.begin(), tail.end());
    }
  } else if (row_ids.size() == static_cast<std::size_t>(rows)) {
    values = a.gather_all();
  } else {
    values = row_range(a, 0, edgeitems).gather_all();
    auto tail = row_range(a, m - edgeitems, m).gather_all();
    values.insert(values.end(), tail.begin(), tail.end());
  }
  // The displayed cells, formatted together (one width for all, as numpy does).
  std::vector<T> shown;
  for (std::size_t i = 0; i < row_ids.size(); ++i)
    for (std::size_t j = 0; j < col_ids.size(); ++j) {
      std::size_t at =
          one_d ? (col_ids.size() == static_cast<std::size_t>(cols) ? static_cast<std::size_t>(col_ids[j]) : j)
                : i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col_ids[j]);
      shown.push_back(values[at]);
    }
  std::vector<std::string> cells = format_values(shown);
  const std::int64_t col_gap = col_ids.size() < static_cast<std::size_t>(cols) ? edgeitems : -1;
  const std::int64_t row_gap = row_ids.size() < static_cast<std::size_t>(rows) ? edgeitems : -1;
  std::string text = "array(";
  if (one_d) {
    text += format_row(cells, col_gap, 6, 1 + suffix.size() + 1);
  } else {
    text += "[";
    for (std::size_t i = 0; i < row_ids.size(); ++i) {
      if (static_cast<std::int64_t>(i) == row_gap) text += "...,\n" + std::string(7, ' ');
      std::vector<std::string> row(cells.begin() + static_cast<std::ptrdiff_t>(i * col_ids.size()),
                                   cells.begin() + static_cast<std::ptrdiff_t>((i + 1) * col_ids.size()));
      text += format_row(row, col_gap, 7, i + 1 == row_ids.size() ? 2 + suffix.size() + 1 : 1);
      if (i + 1 < row_ids.size()) text += ",\n" + std::string(7, ' ');
    }
    text += "]";
  }
  return text + suffix + ")";
}

namespace {
template <class T>
std::string vector_repr(const std::vector<T>& v, std::int64_t threshold, std::int64_t edgeitems) {
  const char* dtype = std::is_same_v<T, double> ? "float64" : "int64";
  if (v.empty()) return std::string("array([], dtype=") + dtype + ")";
  const auto n = static_cast<std::int64_t>(v.size());
  std::vector<T> shown = v;
  std::int64_t gap = -1;
  if (n > threshold && n > 2 * edgeitems) {  // the first and last edgeitems around "...", as to_string(Array)
    shown.assign(v.begin(), v.begin() + edgeitems);
    shown.insert(shown.end(), v.end() - edgeitems, v.end());
    gap = edgeitems;
  }
  return "array(" + format_row(format_values(shown), gap, 6, 2) + ")";
}
}  // namespace

std::string to_string(const std::vector<double>& values, std::int64_t threshold, std::int64_t edgeitems) {
  return vector_repr(values, threshold, edgeitems);
}
std::string to_string(const std::vector<std::int64_t>& values, std::int64_t threshold, std::int64_t edgeitems) {
  return vector_repr(values, threshold, edgeitems);
}

template <class T>
std::ostream& operator<<(std::ostream& os, const Array<T>& a) {
  std::string text = to_string(a);
  if (a.rank() == 0) os << text;
  return os;
}

template std::string to_string(const Array<float>&, std::int64_t, std::int64_t);
template std::string to_string(const Array<double>&, std::int64_t, std::int64_t);
template std::string to_string(const Array<std::int32_t>&, std::int64_t, std::int64_t);
template std::string to_string(const Array<std::int64_t>&, std::int64_t, std::int64_t);
template std::ostream& operator<<(std::ostream&, const Array<float>&);
template std::ostream& operator<<(std::ostream&, const Array<double>&);
template std::ostream& operator<<(std::ostream&, const Array<std::int32_t>&);
template std::ostream& operator<<(std::ostream&, const Array<std::int64_t>&);

}  // namespace slab
