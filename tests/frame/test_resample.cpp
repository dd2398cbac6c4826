// df.resample(freq, on).agg(...) against pandas' resample (golden/make_resample_golden.py writes its answers for the
// input below): several frequencies (ones that do not divide a day too), empty bins, a single bin, unsorted input
// with null times, ranks without rows; a zero-row frame; a sparse series at a fine frequency under a small memory
// limit against a serial count; bad frequencies and columns on every rank.
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "frame_test_util.hpp"
#include "slab/slab.hpp"

using namespace slab::frame;
using frame_test::Engine;

namespace {

constexpr std::int64_t kMinute = 60'000'000'000;
constexpr std::int64_t kDayNs = 86'400'000'000'000;
constexpr std::int64_t kBase = 19'793 * kDayNs;  // 2024-03-11
constexpr std::int64_t kRows = 40;

// resample_input() of make_resample_golden.py (keep the two in step).
LocalTable resample_input() {
  std::vector<std::int64_t> t, i;
  std::vector<std::uint8_t> tv, sv;
  std::vector<double> x;
  std::vector<std::string> s;
  for (std::int64_t k = 0; k < kRows; ++k) {
    std::int64_t m = 317 + (k * k * 37 + k * 11) % 4003;
    if (m >= 1440 && m < 2880) m += 2880;  // nothing on the second day
    t.push_back(k % 11 == 3 ? 0 : kBase + m * kMinute + (k % 3) * 1'000'000'000);
    tv.push_back(k % 11 != 3);
    x.push_back(k % 7 == 2 ? std::nan("") : static_cast<double>(k * 13 % 17) * 0.5 - 3);
    i.push_back((k * 7919) % 101 - 50);
    s.push_back(k % 5 == 1 ? "" : std::string(1, "bacd"[k % 4]));
    sv.push_back(k % 5 != 1);
  }
  LocalTable table;
  table.add(LocalColumn::timestamp("t", t, tv))
      .add(LocalColumn::float64("x", x))
      .add(LocalColumn::int64("i", i))
      .add(LocalColumn::string("s", s, sv));
  return table;
}

enum class Spread { even, first_rank_empty, last_rank_only };

Frame spread(Engine& e, const LocalTable& all, Spread how, std::int64_t rows_per_partition) {
  const std::int64_t p = e.comm().size(), r = e.comm().rank(), n = all.nrows();
  std::int64_t b = n * r / p, end = n * (r + 1) / p;
  if (how == Spread::first_rank_empty && p > 1)
    b = r == 0 ? 0 : n * (r - 1) / (p - 1), end = r == 0 ? 0 : n * r / (p - 1);
  if (how == Spread::last_rank_only) b = r == p - 1 ? 0 : n, end = n;
  return Frame::from_local_table(e, all.slice(b, end), rows_per_partition);
}

// golden[case][column] = the values, as text.
using Golden = std::map<std::string, std::map<std::string, std::vector<std::string>>>;
Golden read_golden() {
  Golden g;
  std::ifstream in(SLAB_RESAMPLE_GOLDEN);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    g[line.substr(0, a)][line.substr(a + 1, b - a - 1)].push_back(line.substr(c + 1));
  }
  return g;
}

const std::vector<std::string> kAllX = {"sum", "mean", "count", "size", "min",    "max",
                                        "std", "var",  "first", "last", "nunique"};
const std::vector<std::string> kAllI = {"sum", "mean", "min", "max", "first", "last"};
const std::vector<std::string> kAllS = {"count", "first", "last", "nunique", "min", "max"};
const std::vector<AggSpec> kFew = {{"x", {"sum", "count", "mean", "max"}}, {"i", {"sum", "size"}}};
const std::vector<AggSpec> kAll = {{"x", kAllX}, {"i", kAllI}, {"s", kAllS}};

// Column `name` of `got` equals pandas' values `want` (NaN in pandas: NaN in a float64 column, else a null).
void expect_column(const LocalTable& got, const std::string& name, const std::vector<std::string>& want,
                   const std::string& what) {
  const LocalColumn& c = got[name];
  ASSERT_EQ(c.size(), want.size()) << what << " " << name;
  for (std::size_t r = 0; r < want.size(); ++r) {
    const std::string& w = want[r];
    const std::string at = what + " " + name + "[" + std::to_string(r) + "]";
    if (w == "nan") {
      if (c.type == ElementType::float64)
        EXPECT_TRUE(std::isnan(c.floats[r])) << at << ": " << c.floats[r];
      else
        EXPECT_TRUE(c.is_null(r)) << at;
      continue;
    }
    ASSERT_FALSE(c.is_null(r)) << at << " is null, pandas " << w;
    switch (c.type) {
      case ElementType::string:
        EXPECT_EQ(c.strings[r], w) << at;
        break;
      case ElementType::int64:
      case ElementType::timestamp:
        EXPECT_EQ(static_cast<double>(c.ints[r]), std::stod(w)) << at;
        break;
      case ElementType::boolean:
        EXPECT_EQ(c.bools[r], std::stod(w)) << at;
        break;
      default: {
        const double v = std::stod(w);
        EXPECT_NEAR(c.floats[r], v, 1e-12 * (1 + std::fabs(v))) << at;
      }
    }
  }
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const slab::Error& ex) {
    return std::string(ex.kind()) + ": " + ex.message();
  }
  return "";
}

// Whether every rank has the same `s`.
bool same_everywhere(const slab::Comm& comm, const std::string& s) {
  std::uint64_t h = std::hash<std::string>{}(s), lo = h, hi = h;
  lo = comm.allreduce(lo, slab::ReduceOp::min);
  hi = comm.allreduce(hi, slab::ReduceOp::max);
  return lo == hi;
}

}  // namespace

TEST(FrameResample, MatchesPandas) {
  Engine e;
  const Golden golden = read_golden();
  ASSERT_EQ(golden.size(), 7u);
  const LocalTable input = resample_input();
  for (auto [how, rpp] :
       {std::pair{Spread::even, 3}, std::pair{Spread::first_rank_empty, 0}, std::pair{Spread::last_rank_only, 7}}) {
    const Frame df = spread(e, input, how, rpp);
    for (const auto& [name, columns] : golden) {
      const std::string freq = name;  // each case is named by its frequency
      const bool all = name == "1h" || name == "1D";
      const LocalTable got = df.resample(freq, "t").agg(all ? kAll : kFew).gather_all();
      const std::string what = "resample('" + freq + "') spread " + std::to_string(static_cast<int>(how));
      EXPECT_EQ(got.ncols(), columns.size()) << what;
      EXPECT_EQ(got.columns[0].name, "t") << what;
      EXPECT_EQ(got.columns[0].type, ElementType::timestamp) << what;
      for (const auto& [column, values] : columns) expect_column(got, column, values, what);
    }
  }
}

// The GroupBy-style spellings give the same columns as agg.
TEST(FrameResample, NamedAggAndAllColumnMethods) {
  Engine e;
  const Golden golden = read_golden();
  const Frame df = spread(e, resample_input(), Spread::even, 4);
  const auto& want = golden.at("1D");
  const LocalTable named = df.resample("1D", "t")
                               .agg({named_agg("total", "x", "sum"), named_agg("n", "x", "count"),
                                     named_agg("rows", "i", "size"), named_agg("top", "s", "max")})
                               .gather_all();
  EXPECT_EQ(named.names(), (std::vector<std::string>{"t", "total", "n", "rows", "top"}));
  LocalTable renamed = named;
  renamed.columns[1].name = "x_sum", renamed.columns[2].name = "x_count", renamed.columns[3].name = "size",
  renamed.columns[4].name = "s_max";
  for (const char* c : {"t", "x_sum", "x_count", "size", "s_max"}) expect_column(renamed, c, want.at(c), "named");
  const LocalTable sums = df.resample("1D", "t").sum().gather_all();
  EXPECT_EQ(sums.names(), (std::vector<std::string>{"t", "x_sum", "i_sum"}));  // no sum of strings
  expect_column(sums, "x_sum", want.at("x_sum"), "sum()");
  expect_column(sums, "i_sum", want.at("i_sum"), "sum()");
  const LocalTable counts = df.resample("1D", "t").count().gather_all();
  EXPECT_EQ(counts.names(), (std::vector<std::string>{"t", "x_count", "i_count", "s_count"}));
  expect_column(counts, "s_count", want.at("s_count"), "count()");
  const LocalTable sizes = df.resample("1D", "t").size().gather_all();
  expect_column(sizes, "size", want.at("size"), "size()");
  const LocalTable firsts = df.resample("1D", "t").first().gather_all();
  expect_column(firsts, "i_first", want.at("i_first"), "first()");
  expect_column(firsts, "s_first", want.at("s_first"), "first()");
}

// pandas: df.iloc[:0].resample("1h", on="t").agg(...) and a frame of null times give no bins.
TEST(FrameResample, ZeroRowsAndNullTimes) {
  Engine e;
  LocalTable input = resample_input();
  for (bool nulls : {false, true}) {
    LocalTable t = nulls ? input : input.slice(0, 0);
    if (nulls) std::fill(t.columns[0].valid.begin(), t.columns[0].valid.end(), 0);
    const Frame df = spread(e, t, Spread::even, 0);
    const Frame r = df.resample("1h", "t").agg({{"x", {"sum", "max"}}, {"s", {"first"}}});
    EXPECT_EQ(r.len(), 0);
    EXPECT_EQ(r.columns(), (std::vector<std::string>{"t", "x_sum", "x_max", "s_first"}));
    EXPECT_EQ(r.schema().type(0), ElementType::timestamp);
    EXPECT_EQ(r.schema().type(3), ElementType::string);
  }
}

// Two rows a day apart at "1s": 86401 bins, all but two empty, in pieces of a bounded size under a 1 MiB limit;
// checked against the serial answer.
TEST(FrameResample, SparseSeriesAtAFineFrequencyStreamsItsBins) {
  Engine e(1ull << 20, 1ull << 30);
  LocalTable all;
  all.add(LocalColumn::timestamp("t", {kBase + kDayNs + 500'000'000, kBase + 250'000'000}))
      .add(LocalColumn::int64("v", {7, 5}));
  const Frame df = spread(e, all, Spread::even, 0);
  const Frame r = df.resample("1s", "t").agg({{"v", {"sum", "count", "max"}}});
  EXPECT_EQ(r.len(), 86'401);
  std::int64_t pieces = 0;
  for (auto n : r.local_partition_rows()) pieces += n > 0;
  pieces = e.comm().allreduce(pieces, slab::ReduceOp::sum);
  EXPECT_GT(pieces, 2);  // the bins were not made as one partition
  const LocalTable got = r.gather_all();
  ASSERT_EQ(got.nrows(), 86'401);
  std::int64_t bad = 0;
  for (std::int64_t k = 0; k < got.nrows(); ++k) {
    const auto j = static_cast<std::size_t>(k);
    const bool first = k == 0, last = k == 86'400;
    bad += got["t"].ints[j] != kBase + k * 1'000'000'000;
    bad += got["v_sum"].ints[j] != (first ? 5 : last ? 7 : 0);
    bad += got["v_count"].ints[j] != (first || last ? 1 : 0);
    bad += got["v_max"].is_null(j) != !(first || last);
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(got["v_max"].ints[86'400], 7);
}

// 20000 rows over 30 days (none on days 10 to 12), out of order, at "1min": about 40000 bins, a groupby that goes
// out of core under a 1 MiB limit (several result partitions per rank), against a serial count and sum per bin.
TEST(FrameResample, ManyBinsOutOfCoreMatchASerialReference) {
  Engine e(1ull << 20, 1ull << 30);
  constexpr std::int64_t n = 20'000;
  std::vector<std::int64_t> t(n), v(n);
  std::uint64_t state = 12345;
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> want;  // bin -> (count, sum)
  for (std::int64_t k = 0; k < n; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::int64_t sec = static_cast<std::int64_t>((state >> 20) % (30 * 86'400));
    if (sec >= 10 * 86'400 && sec < 13 * 86'400) sec += 3 * 86'400;
    t[static_cast<std::size_t>(k)] = kBase + sec * 1'000'000'000 + k % 1000;
    v[static_cast<std::size_t>(k)] = k % 100;
    auto& [count, sum] = want[kBase + sec / 60 * kMinute];
    ++count, sum += k % 100;
  }
  LocalTable all;
  all.add(LocalColumn::timestamp("t", t)).add(LocalColumn::int64("v", v));
  const Frame df = spread(e, all, Spread::even, 1000);
  const Frame r = df.resample("1min", "t").agg({{"v", {"count", "sum", "first"}}});
  std::int64_t parts = static_cast<std::int64_t>(r.num_partitions());
  EXPECT_GT(e.comm().allreduce(parts, slab::ReduceOp::sum), e.comm().size());
  const LocalTable got = r.gather_all();
  const std::int64_t first = want.begin()->first, last = want.rbegin()->first;
  ASSERT_EQ(got.nrows(), (last - first) / kMinute + 1);
  std::int64_t bad = 0, empty = 0;
  for (std::int64_t k = 0; k < got.nrows(); ++k) {
    const auto j = static_cast<std::size_t>(k);
    const std::int64_t bin = first + k * kMinute;
    const auto it = want.find(bin);
    const auto [count, sum] = it == want.end() ? std::pair<std::int64_t, std::int64_t>{0, 0} : it->second;
    empty += count == 0;
    bad += got["t"].ints[j] != bin;
    bad += got["v_count"].ints[j] != count || got["v_sum"].ints[j] != sum;
    bad += got["v_first"].is_null(j) != (count == 0);
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(empty, 3 * 1440);  // the three empty days, at least
}

TEST(FrameResample, BadFrequencyAndColumnsFailOnEveryRank) {
  Engine e;
  const Frame df = spread(e, resample_input(), Spread::even, 0);
  struct Case {
    std::function<void()> call;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[&] { (void)df.resample("1W", "t"); }, "InvalidArgument: resample: '1W' is not a fixed frequency"},
      {[&] { (void)df.resample("ME", "t"); }, "InvalidArgument: resample: 'ME' is not a fixed frequency"},
      {[&] { (void)df.resample("0h", "t"); }, "InvalidArgument: resample: '0h' is not a fixed frequency"},
      {[&] { (void)df.resample("bogus", "t"); }, "InvalidArgument: resample: 'bogus' is not a fixed frequency"},
      {[&] { (void)df.resample("1h", "x"); }, "TypeError: resample: on='x' is a float64 column"},
      {[&] { (void)df.resample("1h", "s"); }, "TypeError: resample: on='s' is a string column"},
      {[&] { (void)df.resample("1h", "nope"); }, "InvalidArgument: resample: on='nope' is not a column (columns: t, x"},
      {[&] { (void)df.resample("1h", ""); }, "InvalidArgument: resample: name the timestamp column"},
      {[&] {
         (void)df.resample("1h", "t").agg({{"t", {"count"}}});
       },
       "InvalidArgument: resample: the time column 't' is the bins"},
      {[&] {
         (void)df.resample("1h", "t").agg({{"y", {"sum"}}});
       },
       "InvalidArgument: unknown column 'y'"},
      {[&] {
         (void)df.resample("1h", "t").agg({{"x", {"mode"}}});
       },
       "InvalidArgument: unknown aggregation 'mode'"},
      {[&] {
         (void)df.resample("1h", "t").agg({{"s", {"mean"}}});
       },
       "TypeError: groupby: mean of string column 's'"},
      {[&] {
         (void)resample(df, 0, "t", {{"x", {AggOp::sum}}});
       },
       "InvalidArgument: resample: the frequency must be positive"},
  };
  for (const auto& c : cases) {
    const std::string err = error_of(c.call);
    EXPECT_EQ(err.rfind(c.message, 0), 0u) << err;
    EXPECT_TRUE(same_everywhere(e.comm(), err)) << err;
  }
}
