#include "slab/core/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "slab/core/error.hpp"

namespace slab {

std::uint64_t ByteLimit::resolve(std::uint64_t total) const noexcept {
  if (bytes) return *bytes;
  if (fraction) return static_cast<std::uint64_t>(std::floor(*fraction * static_cast<double>(total)));
  return total;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

[[noreturn]] void bad(std::string_view text, std::string_view what, std::string_view why) {
  SLAB_FAIL(InvalidArgument, std::string(what) + ": '" + std::string(text) + "' is not a valid byte size (" +
                                 std::string(why) + "; examples: 4GiB, 512MB, 0.8, 80%)");
}

}  // namespace

ByteLimit parse_byte_limit(std::string_view text, std::string_view what) {
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  if (s.empty()) bad(text, what, "empty");
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(s, &pos);
  } catch (const std::exception&) {
    bad(text, what, "no number");
  }
  if (!std::isfinite(value) || value < 0) bad(text, what, "negative or not finite");
  std::string unit = lower(s.substr(pos));
  ByteLimit out;
  if (unit == "%") {
    if (value <= 0 || value > 100) bad(text, what, "a percentage must be in (0, 100]");
    out.fraction = value / 100.0;
    return out;
  }
  const bool has_point = s.substr(0, pos).find_first_of(".eE") != std::string::npos;
  if (unit.empty() && has_point) {
    if (value <= 0 || value > 1) bad(text, what, "a fraction must be in (0, 1]");
    out.fraction = value;
    return out;
  }
  struct Unit {
    const char* name;
    double factor;
  };
  static constexpr std::array<Unit, 14> units{{{"", 1.0},
                                               {"b", 1.0},
                                               {"k", 1e3},
                                               {"kb", 1e3},
                                               {"kib", 1024.0},
                                               {"m", 1e6},
                                               {"mb", 1e6},
                                               {"mib", 1048576.0},
                                               {"g", 1e9},
                                               {"gb", 1e9},
                                               {"gib", 1073741824.0},
                                               {"tb", 1e12},
                                               {"t", 1e12},
                                               {"tib", 1099511627776.0}}};
  for (const auto& u : units) {
    if (unit == u.name) {
      const double b = std::round(value * u.factor);
      if (b >= 1.8e19) bad(text, what, "too large");
      out.bytes = static_cast<std::uint64_t>(b);
      return out;
    }
  }
  bad(text, what, "unknown unit '" + unit + "'");
}

std::uint64_t parse_bytes(std::string_view text, std::string_view what) {
  ByteLimit limit = parse_byte_limit(text, what);
  if (!limit.bytes) bad(text, what, "a fraction is not allowed here");
  return *limit.bytes;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> names{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t i = 0;
  while (v >= 1024.0 && i + 1 < names.size()) {
    v /= 1024.0;
    ++i;
  }
  char buf[32];
  if (i == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", v, names[i]);
  return buf;
}

}  // namespace slab
