#include "slab/frame/datasets.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/error.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {
constexpr std::int64_t kSecond = 1'000'000'000;
// Howard Hinnant's days_from_civil / civil_from_days.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

std::int64_t parse_timestamp(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, consumed = 0;
  std::string t(text);
  int got = std::sscanf(t.c_str(), "%d-%d-%d%n", &y, &mo, &d, &consumed);
  SLAB_EXPECTS(got == 3 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31, InvalidArgument,
               "parse_timestamp: cannot parse '" + t + "' (expected YYYY-MM-DD[ HH:MM:SS])");
  if (static_cast<std::size_t>(consumed) < t.size()) {
    char sep = t[static_cast<std::size_t>(consumed)];
    int c2 = 0;
    SLAB_EXPECTS((sep == 'T' || sep == ' ') &&
                     std::sscanf(t.c_str() + consumed + 1, "%d:%d:%d%n", &h, &mi, &s, &c2) == 3 &&
                     static_cast<std::size_t>(consumed + 1 + c2) == t.size(),
                 InvalidArgument, "parse_timestamp: cannot parse '" + t + "' (expected YYYY-MM-DD[ HH:MM:SS])");
  }
  std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60 * kSecond + s * kSecond;
}

std::int64_t parse_freq(std::string_view text) {
  std::int64_t n = 1;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i > 0) std::from_chars(text.data(), text.data() + i, n);
  std::string unit(text.substr(i));
  std::int64_t mult = 0;
  if (unit == "ns" || unit == "N")
    mult = 1;
  else if (unit == "us" || unit == "U")
    mult = 1000;
  else if (unit == "ms" || unit == "L")
    mult = 1'000'000;
  else if (unit == "s" || unit == "S")
    mult = kSecond;
  else if (unit == "min" || unit == "T")
    mult = 60 * kSecond;
  else if (unit == "h" || unit == "H")
    mult = 3600 * kSecond;
  else if (unit == "D" || unit == "d")
    mult = 86400 * kSecond;
  SLAB_EXPECTS(mult > 0 && n > 0, InvalidArgument,
               "parse_freq: cannot parse '" + std::string(text) + "' (e.g. 1s, 30s, 1min, 1h, 1D, 100ms)");
  return n * mult;
}

std::string format_timestamp(std::int64_t ns) {
  std::int64_t secs = floor_div(ns, kSecond);
  std::int64_t frac = ns - secs * kSecond;
  std::int64_t days = floor_div(secs, 86400);
  std::int64_t sod = secs - days * 86400;
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

namespace datasets {

namespace {
Dictionary names_dictionary() {
  std::vector<std::string> v(kNames.begin(), kNames.end());  // already sorted
  return make_dictionary(std::move(v));
}
}  // namespace

Frame generate(TaskQueue& queue, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition, std::string name,
               std::function<void(std::int64_t first_row, BatchBuilder& out)> fill) {
  SLAB_EXPECTS(nrows >= 0, InvalidArgument, "datasets: negative row count");
  std::int64_t per = rows_per_partition > 0 ? rows_per_partition : std::max<std::int64_t>(nrows, 1);
  std::int64_t nparts = (nrows + per - 1) / per;
  int p = queue.comm().size(), r = queue.comm().rank();
  std::int64_t base = nparts / p, extra = nparts % p;
  std::int64_t first = r * base + std::min<std::int64_t>(r, extra);
  std::int64_t count = base + (r < extra ? 1 : 0);
  auto fillp = std::make_shared<std::function<void(std::int64_t, BatchBuilder&)>>(std::move(fill));
  auto types = types_of(schema);
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  for (std::int64_t k = first; k < first + count; ++k) {
    std::int64_t b = k * per, e = std::min(nrows, b + per);
    parts.push_back(queue.submit(name, {}, [fillp, types, b, e](TaskContext& ctx) {
      BatchBuilder out(ctx, e - b, types, {});
      (*fillp)(b, out);
    }));
    rows.emplace_back(e - b);
  }
  return Frame(queue, std::move(schema), std::move(parts), std::move(rows));
}

Frame timeseries(TaskQueue& queue, std::string_view start, std::string_view end, std::string_view freq,
                 std::uint64_t seed, std::string_view partition_freq) {
  std::int64_t t0 = parse_timestamp(start), t1 = parse_timestamp(end), f = parse_freq(freq);
  std::int64_t pf = parse_freq(partition_freq);
  std::int64_t n = t1 > t0 ? (t1 - t0 + f - 1) / f : 0;
  std::int64_t per = std::max<std::int64_t>(pf / f, 1);
  std::uint64_t s0 = 100 + 4 * (seed % 1000);
  Schema schema({{"timestamp", DType::timestamp},
                 {"id", DType::int64},
                 {"name", DType::string},
                 {"x", DType::float64},
                 {"y", DType::float64}},
                {nullptr, nullptr, names_dictionary(), nullptr, nullptr});
  return generate(queue, schema, n, per, "timeseries", [t0, f, s0](std::int64_t first, BatchBuilder& out) {
    auto ts = out.column<std::int64_t>(0);
    auto id = out.column<std::int64_t>(1);
    auto name = out.column<std::int32_t>(2);
    auto x = out.column<double>(3);
    auto y = out.column<double>(4);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      ts[i] = t0 + static_cast<std::int64_t>(r) * f;
      id[i] = 950 + static_cast<std::int64_t>(counter_hash(s0, r) % 101);
      name[i] = static_cast<std::int32_t>(counter_hash(s0 + 1, r) % 26);
      x[i] = 2.0 * counter_uniform(s0 + 2, r) - 1.0;
      y[i] = 2.0 * counter_uniform(s0 + 3, r) - 1.0;
    }
  });
}

Frame w3(TaskQueue& queue, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"id", DType::int64}, {"name", DType::string}, {"x", DType::float64}, {"y", DType::float64}},
                {nullptr, names_dictionary(), nullptr, nullptr});
  return generate(queue, schema, n, rows_per_partition, "w3", [](std::int64_t first, BatchBuilder& out) {
    auto id = out.column<std::int64_t>(0);
    auto name = out.column<std::int32_t>(1);
    auto x = out.column<double>(2);
    auto y = out.column<double>(3);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      id[i] = static_cast<std::int64_t>(counter_hash(3, r) % 1000);
      name[i] = static_cast<std::int32_t>(counter_hash(4, r) % 26);
      x[i] = (2.0 * counter_uniform(5, r)) - 1.0;
      y[i] = (2.0 * counter_uniform(6, r)) - 1.0;
    }
  });
}

Frame w4_left(TaskQueue& queue, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"key", DType::int64}, {"value", DType::float64}});
  return generate(queue, schema, n, rows_per_partition, "w4_left", [](std::int64_t first, BatchBuilder& out) {
    auto key = out.column<std::int64_t>(0);
    auto value = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      key[i] = static_cast<std::int64_t>(counter_hash(7, r) % 2'000'000);
      value[i] = counter_uniform(8, r);
    }
  });
}

Frame w4_right(TaskQueue& queue, std::int64_t m, std::int64_t rows_per_partition) {
  Schema schema({{"key", DType::int64}, {"value2", DType::float64}});
  return generate(queue, schema, m, rows_per_partition, "w4_right", [m](std::int64_t first, BatchBuilder& out) {
    auto key = out.column<std::int64_t>(0);
    auto value = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto q = static_cast<std::uint64_t>(first + i);
      key[i] = static_cast<std::int64_t>((q * 1'000'003ull) % static_cast<std::uint64_t>(m));
      value[i] = counter_uniform(9, q);
    }
  });
}

Frame w5(TaskQueue& queue, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"t", DType::timestamp}, {"v", DType::float64}});
  const std::int64_t t0 = parse_timestamp("2000-01-01");
  return generate(queue, schema, n, rows_per_partition, "w5", [t0](std::int64_t first, BatchBuilder& out) {
    auto t = out.column<std::int64_t>(0);
    auto v = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      t[i] = t0 + static_cast<std::int64_t>(r) * kSecond;
      v[i] = counter_uniform(10, r);
    }
  });
}

}  // namespace datasets
}  // namespace slab::frame
