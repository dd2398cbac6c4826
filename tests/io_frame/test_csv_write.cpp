// write_csv against pandas' to_csv bytes (data/make_csv_write_golden.py builds the same frames and writes its
// bytes): at every rank count, with several partitions per rank, ranks without rows, out of core; the timestamp
// format per pandas chunk; the round trip through read_csv; the header-only and one-column cases; bad input.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "../io/io_test_util.hpp"
#include "slab/core/time.hpp"
#include "slab/io/csv.hpp"

namespace sf = slab::frame;

namespace {

constexpr std::int64_t kDay = 86'400LL * 1'000'000'000LL;
constexpr std::int64_t kHour = 3'600LL * 1'000'000'000LL;
constexpr std::int64_t kBase = 19'793LL * kDay;  // 2024-03-11
constexpr std::int64_t kGoldenRows = 64;

std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// golden_frame() of make_csv_write_golden.py, row k (keep the two in step).
const std::vector<double> kFloatSpecial = {0.1,
                                           1e20,
                                           1.0 / 3.0,
                                           -0.0,
                                           std::numeric_limits<double>::quiet_NaN(),
                                           std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity(),
                                           1e16,
                                           1e15,
                                           1e-4,
                                           1e-5,
                                           5e-324,
                                           1.7976931348623157e308,
                                           2.2250738585072014e-308,
                                           123456789.123,
                                           1.0,
                                           0.0,
                                           -2.5,
                                           1e22,
                                           9007199254740993.0,
                                           1.5e-323,
                                           100.0,
                                           1234567890123456.7,
                                           0.000123,
                                           2.0 / 3.0,
                                           -1e-7};
const std::vector<std::optional<std::string>> kStringSpecial = {
    "a,b",   "q\"x", "l\nm", "crlf\r\nx",  " lead", "tail ", "é中文", "",        std::nullopt,
    "t\tab", "#",    "'",    "semi;colon", "\"\"",  "plain", "NA",    "x;y,z\"w"};
const std::vector<std::int64_t> kIntSpecial = {
    0, 1, -1, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 42, -1000000007};

double f_value(std::int64_t k) {
  if (k < static_cast<std::int64_t>(kFloatSpecial.size())) return kFloatSpecial[static_cast<std::size_t>(k)];
  std::uint64_t u = splitmix64(static_cast<std::uint64_t>(k));
  if (k % 2) return static_cast<double>(static_cast<std::int64_t>(u % 2'000'001) - 1'000'000) / 1000.0;
  if (((u >> 52) & 0x7FF) == 0x7FF) u &= ~(1ull << 62);
  return std::bit_cast<double>(u);
}
std::optional<std::string> s_value(std::int64_t k) {
  if (k < static_cast<std::int64_t>(kStringSpecial.size())) return kStringSpecial[static_cast<std::size_t>(k)];
  if (k % 9 == 4) return std::nullopt;
  return "w" + std::to_string(k);
}
std::int64_t i_value(std::int64_t k) {
  if (k < static_cast<std::int64_t>(kIntSpecial.size())) return kIntSpecial[static_cast<std::size_t>(k)];
  return static_cast<std::int64_t>(splitmix64(static_cast<std::uint64_t>(k + 500))) >> (k % 64);
}
std::optional<std::int64_t> t_value(std::int64_t k) {
  if (k % 17 == 9) return std::nullopt;
  if (k % 13 == 5) return -(k * 86'400 + 1) * 1'000'000'000LL - 250'000'000;
  return kBase + k * kHour + (k % 7) * 125'000'000;
}
std::optional<std::int64_t> d_value(std::int64_t k) {
  if (k % 5 == 2) return std::nullopt;
  return kBase - k * 37 * kDay;
}

// Rows [b, e) of golden_frame().
sf::LocalTable golden_rows(std::int64_t b, std::int64_t e) {
  std::vector<std::int64_t> i, t, tn, d, in;
  std::vector<double> f;
  std::vector<std::uint8_t> bo, bn, tv, dv, inv, bnv, sv;
  std::vector<std::string> s;
  for (std::int64_t k = b; k < e; ++k) {
    i.push_back(i_value(k));
    f.push_back(f_value(k));
    bo.push_back((splitmix64(static_cast<std::uint64_t>(k + 1000)) & 1) ? 1 : 0);
    auto sk = s_value(k);
    s.push_back(sk.value_or(""));
    sv.push_back(sk.has_value());
    auto tk = t_value(k);
    t.push_back(tk.value_or(0));
    tv.push_back(tk.has_value());
    tn.push_back(kBase + k * 1'000'000'007LL);
    auto dk = d_value(k);
    d.push_back(dk.value_or(0));
    dv.push_back(dk.has_value());
    in.push_back(k * k - 500);
    inv.push_back(k % 4 != 1);
    bn.push_back(k % 2 == 0);
    bnv.push_back(k % 3 != 0);
  }
  sf::LocalTable table;
  table.add(sf::LocalColumn::int64("i", i))
      .add(sf::LocalColumn::float64("f", f))
      .add(sf::LocalColumn::boolean("b", bo))
      .add(sf::LocalColumn::string("say \"what\", é", s, sv))
      .add(sf::LocalColumn::timestamp("t", t, tv))
      .add(sf::LocalColumn::timestamp("tn", tn))
      .add(sf::LocalColumn::timestamp("d", d, dv))
      .add(sf::LocalColumn::int64("in", in, inv))
      .add(sf::LocalColumn::boolean("bn", bn, bnv));
  return table;
}

constexpr std::int64_t kChunkRows = 100'010;

// chunk_frame() of the script, rows [b, e).
sf::LocalTable chunk_rows(std::int64_t b, std::int64_t e) {
  std::vector<std::int64_t> t, i;
  for (std::int64_t k = b; k < e; ++k) {
    t.push_back(k == 75'000 ? kBase + 250'000'000 : k == 100'005 ? kBase + 12 * kHour : kBase);
    i.push_back(7);
  }
  sf::LocalTable table;
  table.add(sf::LocalColumn::timestamp("t", t)).add(sf::LocalColumn::int64("i", i));
  return table;
}

enum class Spread { even, last_rank_only, first_rank_empty };

// A frame of `rows(b, e)` with rank r holding a block of rows by `spread`, in partitions of `rpp` rows.
sf::Frame make_frame(iotest::Engine& e, const std::function<sf::LocalTable(std::int64_t, std::int64_t)>& rows,
                     std::int64_t n, Spread spread, std::int64_t rpp) {
  const std::int64_t p = e.comm().size(), r = e.comm().rank();
  std::int64_t b = n * r / p, end = n * (r + 1) / p;
  if (spread == Spread::last_rank_only) b = r == p - 1 ? 0 : n, end = r == p - 1 ? n : n;
  if (spread == Spread::first_rank_empty && p > 1) {
    b = r == 0 ? 0 : n * (r - 1) / (p - 1);
    end = r == 0 ? 0 : n * r / (p - 1);
  }
  return sf::Frame::from_local_table(e, rows(b, end), rpp);
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string golden(const std::string& name) { return read_bytes(std::string(SLAB_IO_FRAME_DATA) + "/" + name); }

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "";
  const std::size_t ls = a.rfind('\n', i == 0 ? 0 : i - 1);
  const std::size_t from = ls == std::string::npos ? 0 : ls + 1;
  return "byte " + std::to_string(i) + ": slab '" + a.substr(from, i - from + 40) + "' pandas '" +
         b.substr(from, i - from + 40) + "'";
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const slab::Error& ex) {
    return std::string(ex.kind()) + ": " + ex.message();
  }
  return "";
}

// Every rank's string equals rank 0's (so a failure is the same on every rank).
bool same_everywhere(const slab::Comm& comm, const std::string& s) {
  std::vector<char> all;
  comm.allgatherv(std::span<const char>(s.data(), s.size()), all);
  return std::string(all.begin(), all.end()) == [&] {
    std::string r;
    for (int k = 0; k < comm.size(); ++k) r += s;
    return r;
  }();
}

}  // namespace

TEST(FrameCsvWrite, MatchesPandasBytes) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string want = golden("csv_write_default.csv"), want_opt = golden("csv_write_options.csv");
  ASSERT_FALSE(want.empty());
  slab::io::CsvWriteOptions opt;
  opt.sep = ';';
  opt.na_rep = "NA";
  opt.float_format = "%.4g";
  opt.line_terminator = "\r\n";
  struct Layout {
    Spread spread;
    std::int64_t rpp;
  };
  for (const Layout& l : {Layout{Spread::even, 5}, Layout{Spread::even, 0}, Layout{Spread::last_rank_only, 9},
                          Layout{Spread::first_rank_empty, 3}}) {
    const sf::Frame f = make_frame(e, golden_rows, kGoldenRows, l.spread, l.rpp);
    const std::string path = dir.file("golden.csv");
    slab::io::write_csv(f, path);
    const std::string got = read_bytes(path);
    EXPECT_TRUE(got == want) << first_difference(got, want);
    slab::io::write_csv(f, path, opt);  // over the previous file
    const std::string got_opt = read_bytes(path);
    EXPECT_TRUE(got_opt == want_opt) << first_difference(got_opt, want_opt);
    e.comm().barrier();
  }
  // No temporary is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path))
    EXPECT_EQ(entry.path().filename().string(), "golden.csv");
}

// pandas formats a timestamp column per chunk of 100000 / ncols rows (here 50000): the first chunk is dates only,
// the second has milliseconds, the third whole seconds. The rank boundaries fall inside the chunks; and under a
// small memory limit the partitions spill and most texts are formatted again when written.
TEST(FrameCsvWrite, TimestampFormatPerPandasChunk) {
  std::string want;
  {
    std::istringstream runs(golden("csv_write_chunks.txt"));
    std::string line;
    while (std::getline(runs, line)) {
      const auto sp = line.find(' ');
      const long n = std::stol(line.substr(0, sp));
      for (long k = 0; k < n; ++k) want += line.substr(sp + 1) + "\n";
    }
  }
  for (const std::uint64_t limit : {1ull << 30, 1ull << 20}) {
    iotest::Engine e(limit, 1ull << 30);
    iotest::ScratchDir dir(e.comm());
    const sf::Frame f = make_frame(e, chunk_rows, kChunkRows, Spread::even, 7000);
    const std::string path = dir.file("chunks.csv");
    slab::io::write_csv(f, path);
    const std::string got = read_bytes(path);
    EXPECT_EQ(got.size(), want.size()) << "limit " << limit;
    EXPECT_TRUE(got == want) << "limit " << limit << ": " << first_difference(got, want);
  }
}

TEST(FrameCsvWrite, RoundTripsThroughReadCsv) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const sf::Frame f = make_frame(e, golden_rows, kGoldenRows, Spread::first_rank_empty, 4);
  const std::string path = dir.file("round.csv");
  slab::io::write_csv(f, path);
  const sf::LocalTable want = golden_rows(0, kGoldenRows);
  const sf::LocalTable got = slab::io::read_csv(e, path).gather_all();
  ASSERT_EQ(got.names(), want.names());
  for (std::size_t c = 0; c < want.ncols(); ++c) {
    const sf::LocalColumn &w = want.columns[c], &g = got.columns[c];
    EXPECT_EQ(g.type, w.type) << w.name;
    if (g.type != w.type || g.size() != w.size()) continue;
    for (std::size_t k = 0; k < w.size(); ++k) {
      // read_csv reads "" and "NA" as nulls, as pandas' read_csv does.
      const bool null =
          w.is_null(k) || (w.type == slab::ElementType::string && (w.strings[k].empty() || w.strings[k] == "NA"));
      EXPECT_EQ(g.is_null(k), null) << w.name << " row " << k;
      if (null || g.is_null(k)) continue;
      switch (w.type) {
        case slab::ElementType::float64:
          EXPECT_EQ(std::bit_cast<std::uint64_t>(g.floats[k]), std::bit_cast<std::uint64_t>(w.floats[k]))
              << w.name << " row " << k << ": " << w.floats[k];
          break;
        case slab::ElementType::string:
          EXPECT_EQ(g.strings[k], w.strings[k]) << w.name << " row " << k;
          break;
        case slab::ElementType::boolean:
          EXPECT_EQ(g.bools[k], w.bools[k]) << w.name << " row " << k;
          break;
        default:
          EXPECT_EQ(g.ints[k], w.ints[k]) << w.name << " row " << k;
      }
    }
  }
}

// Small cases, each with the bytes pandas 3.1.1 writes (the expression in the comment).
TEST(FrameCsvWrite, HeaderOnlyOneColumnAndQuoting) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string path = dir.file("small.csv");
  auto write = [&](const sf::LocalTable& t, const slab::io::CsvWriteOptions& opt = {}) {
    // Every row on the last rank: the others write nothing (or, rank 0, only the header).
    const bool mine = e.comm().rank() == e.comm().size() - 1;
    slab::io::write_csv(sf::Frame::from_local_table(e, mine ? t : t.slice(0, 0)), path, opt);
    return read_bytes(path);
  };
  sf::LocalTable zero;
  zero.add(sf::LocalColumn::int64("a", {})).add(sf::LocalColumn::string("b,c", {}));
  EXPECT_EQ(write(zero), "a,\"b,c\"\n");  // pd.DataFrame({"a": [], "b,c": []}).to_csv(index=False)
  slab::io::CsvWriteOptions no_header;
  no_header.header = false;
  EXPECT_EQ(write(zero, no_header), "");
  sf::LocalTable one;
  one.add(sf::LocalColumn::float64("x", {1.5, std::numeric_limits<double>::quiet_NaN(), 2.0}));
  EXPECT_EQ(write(one), "x\n1.5\n\"\"\n2.0\n");  // pd.DataFrame({"x": [1.5, np.nan, 2.0]}).to_csv(index=False)
  sf::LocalTable unnamed;
  unnamed.add(sf::LocalColumn::int64("", {1}));
  EXPECT_EQ(write(unnamed), "\"\"\n1\n");  // pd.DataFrame({"": [1]}).to_csv(index=False)
  sf::LocalTable two;
  two.add(sf::LocalColumn::int64("a", {1})).add(sf::LocalColumn::float64("b", {std::nan("")}));
  EXPECT_EQ(write(two), "a,b\n1,\n");
  // pd.DataFrame({"s": ["a ", " b", "\t"], "t": ["x", "y", "z"]}).to_csv(index=False, sep=" ")
  sf::LocalTable spaces;
  spaces.add(sf::LocalColumn::string("s", {"a ", " b", "\t"})).add(sf::LocalColumn::string("t", {"x", "y", "z"}));
  slab::io::CsvWriteOptions space;
  space.sep = ' ';
  EXPECT_EQ(write(spaces, space), "s t\n\"a \" x\n\" b\" y\n\t z\n");
  // f.to_csv(index=False, float_format="%g", na_rep="a,b") for f = {"f": [0.1, nan, inf, -0.0], "i": [1, 2, 3, 4]}
  sf::LocalTable floats;
  floats.add(sf::LocalColumn::float64("f", {0.1, std::nan(""), INFINITY, -0.0}))
      .add(sf::LocalColumn::int64("i", {1, 2, 3, 4}));
  slab::io::CsvWriteOptions g;
  g.float_format = "%g";
  g.na_rep = "a,b";
  EXPECT_EQ(write(floats, g), "f,i\n0.1,1\n\"a,b\",2\ninf,3\n-0,4\n");
  // The same with sep=".": pandas' csv writer quotes a number holding the separator.
  slab::io::CsvWriteOptions dot;
  dot.sep = '.';
  EXPECT_EQ(write(floats, dot), "f.i\n\"0.1\".1\n.2\ninf.3\n\"-0.0\".4\n");
  // A bare carriage return is quoted, as CPython >= 3.11.9 does (gh-67044), and reads back.
  sf::LocalTable cr;
  cr.add(sf::LocalColumn::string("s", {"c\rr", "x"})).add(sf::LocalColumn::int64("i", {1, 2}));
  EXPECT_EQ(write(cr), "s,i\n\"c\rr\",1\nx,2\n");
  const sf::LocalTable back = slab::io::read_csv(e, path).gather_all();
  ASSERT_EQ(back.nrows(), 2);
  EXPECT_EQ(back["s"].strings[0], "c\rr");
}

TEST(FrameCsvWrite, BadInputFailsOnEveryRankAndLeavesTheTargetAlone) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const sf::Frame f = make_frame(e, golden_rows, kGoldenRows, Spread::even, 0);
  const std::string path = dir.file("keep.csv");
  if (e.comm().rank() == 0) std::ofstream(path) << "old";
  e.comm().barrier();
  auto with = [](auto set) {
    slab::io::CsvWriteOptions o;
    set(o);
    return o;
  };
  const std::vector<std::pair<slab::io::CsvWriteOptions, std::string>> bad_options = {
      {with([](auto& o) { o.sep = '"'; }), "InvalidArgument: write_csv: sep must not be"},
      {with([](auto& o) { o.sep = '\n'; }), "InvalidArgument: write_csv: sep must not be"},
      {with([](auto& o) { o.line_terminator = ""; }), "InvalidArgument: write_csv: line_terminator"},
      {with([](auto& o) { o.float_format = "%d"; }), "InvalidArgument: write_csv: float_format '%d'"},
      {with([](auto& o) { o.float_format = "%f,%f"; }), "InvalidArgument: write_csv: float_format '%f,%f'"},
      {with([](auto& o) { o.float_format = "%.3"; }), "InvalidArgument: write_csv: float_format '%.3'"},
      {with([](auto& o) { o.float_format = "%*f"; }), "InvalidArgument: write_csv: float_format '%*f'"},
  };
  for (const auto& bad : bad_options) {
    const std::string& message = bad.second;  // bad.first in the lambda: clang 14 cannot capture a binding
    const std::string err = error_of([&] { slab::io::write_csv(f, path, bad.first); });
    EXPECT_EQ(err.rfind(message, 0), 0u) << err;
    EXPECT_TRUE(same_everywhere(e.comm(), err));
  }
  const std::string missing = dir.file("no/such/dir/x.csv");
  const std::string err = error_of([&] { slab::io::write_csv(f, missing); });
  EXPECT_EQ(err,
            "IoError: " + missing + ": cannot create: No such file or directory (in " + dir.file("no/such/dir") + ")");
  EXPECT_TRUE(same_everywhere(e.comm(), err));
  const std::string err_dir = error_of([&] { slab::io::write_csv(f, dir.path); });
  EXPECT_EQ(err_dir, "IoError: " + dir.path + ": is a directory");
  EXPECT_TRUE(same_everywhere(e.comm(), err_dir));
  EXPECT_EQ(read_bytes(path), "old");
  e.comm().barrier();
  // And a good write replaces it.
  slab::io::write_csv(f, path);
  EXPECT_EQ(read_bytes(path), golden("csv_write_default.csv"));
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) entries += !entry.is_directory();
  EXPECT_EQ(entries, 1u);
}
