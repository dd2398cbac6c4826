#include "slab/core/time.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "slab/core/error.hpp"

namespace slab {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

bool digits(std::string_view t, std::size_t at, std::size_t n, int& out) noexcept {
  if (at + n > t.size()) return false;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    v = v * 10 + (t[i] - '0');
  }
  out = v;
  return true;
}

struct Unit {
  std::string_view name;
  std::string_view alias;
  std::int64_t ns;
};
// Largest first (format_duration takes the first that divides).
constexpr Unit kUnits[] = {{"d", "D", kNanosPerDay},
                           {"h", "H", 3600 * kNanosPerSecond},
                           {"min", "T", 60 * kNanosPerSecond},
                           {"s", "S", kNanosPerSecond},
                           {"ms", "L", 1'000'000},
                           {"us", "U", 1'000},
                           {"ns", "N", 1}};

}  // namespace

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

bool parse_timestamp(std::string_view t, std::int64_t& ns) noexcept {
  int y, mo, d, h = 0, mi = 0, s = 0;
  if (!digits(t, 0, 4, y) || t.size() < 10 || t[4] != '-' || !digits(t, 5, 2, mo) || t[7] != '-' || !digits(t, 8, 2, d))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  static constexpr int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap)) return false;
  std::size_t at = 10;
  std::int64_t frac = 0;
  std::int64_t offset_s = 0;
  if (at < t.size()) {
    if (t[at] != 'T' && t[at] != ' ') return false;
    if (!digits(t, at + 1, 2, h) || at + 3 >= t.size() || t[at + 3] != ':' || !digits(t, at + 4, 2, mi)) return false;
    at += 6;
    if (at < t.size() && t[at] == ':') {
      if (!digits(t, at + 1, 2, s)) return false;
      at += 3;
      if (at < t.size() && t[at] == '.') {
        ++at;
        std::size_t nd = 0;
        while (at < t.size() && t[at] >= '0' && t[at] <= '9') {
          if (nd < 9) frac = frac * 10 + (t[at] - '0');
          ++nd, ++at;
        }
        if (nd == 0) return false;
        for (std::size_t k = nd; k < 9; ++k) frac *= 10;
      }
    }
    if (h > 23 || mi > 59 || s > 60) return false;
    if (at < t.size()) {
      if (t[at] == 'Z' && at + 1 == t.size()) {
        ++at;
      } else if (t[at] == '+' || t[at] == '-') {
        int oh, om = 0;
        if (!digits(t, at + 1, 2, oh)) return false;
        std::size_t k = at + 3;
        if (k < t.size() && t[k] == ':') ++k;
        if (k < t.size()) {
          if (!digits(t, k, 2, om)) return false;
          k += 2;
        }
        if (k != t.size()) return false;
        offset_s = (t[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        at = k;
      } else {
        return false;
      }
    }
  }
  if (at != t.size()) return false;
  const std::int64_t secs = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                            mi * 60 + s - offset_s;
  // Beyond what int64 nanoseconds hold: not a timestamp (found by fuzzing: the product overflowed).
  std::int64_t v = 0;
  if (__builtin_mul_overflow(secs, kNanosPerSecond, &v) || __builtin_add_overflow(v, frac, &v)) return false;
  ns = v;
  return true;
}

std::int64_t parse_timestamp(std::string_view text) {
  std::int64_t ns = 0;
  SLAB_EXPECTS(parse_timestamp(text, ns), InvalidArgument,
               "cannot parse '" + std::string(text) + "' as a timestamp (expected YYYY-MM-DD[ HH:MM[:SS[.f]]])");
  return ns;
}

std::string format_timestamp(std::int64_t ns) {
  const std::int64_t secs = floor_div(ns, kNanosPerSecond);
  const std::int64_t frac = ns - secs * kNanosPerSecond;
  const std::int64_t days = floor_div(secs, 86400);
  const std::int64_t sod = secs - days * 86400;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                static_cast<long long>(sod % 60));
  std::string out = buf;
  if (frac) {
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(frac));
    out += buf;
  }
  return out;
}

bool parse_duration(std::string_view t, std::int64_t& ns) noexcept {
  std::size_t pos = 0;
  while (pos < t.size() && ((t[pos] >= '0' && t[pos] <= '9') || t[pos] == '.')) ++pos;
  const std::string_view num = t.substr(0, pos), unit = t.substr(pos);
  if (unit.empty()) return false;
  if (num.empty()) return parse_duration(std::string("1").append(unit), ns);  // "h" = "1h", as pandas
  const Unit* u = nullptr;
  for (const Unit& k : kUnits)
    if (unit == k.name || unit == k.alias) u = &k;
  if (u == nullptr) return false;
  if (num.find('.') == std::string_view::npos) {
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || p != num.data() + num.size() || n <= 0) return false;
    return !__builtin_mul_overflow(n, u->ns, &ns);
  }
  double value = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
  if (ec != std::errc() || p != num.data() + num.size()) return false;
  const double scaled = std::round(value * static_cast<double>(u->ns));
  if (!(scaled >= 1) || scaled >= 9.2e18) return false;
  ns = static_cast<std::int64_t>(scaled);
  return true;
}

std::int64_t parse_duration(std::string_view text, std::string_view what) {
  std::int64_t ns = 0;
  SLAB_EXPECTS(parse_duration(text, ns), InvalidArgument,
               std::string(what) + ": cannot parse '" + std::string(text) +
                   "' as a duration (e.g. 1h, 30min, 15s, 500ms, 2d, 1.5h)");
  return ns;
}

std::string format_duration(std::int64_t ns) {
  if (ns == 0) return "0ns";
  for (const Unit& u : kUnits)
    if (ns % u.ns == 0) return std::to_string(ns / u.ns) + std::string(u.name);
  return std::to_string(ns) + "ns";
}

}  // namespace slab
