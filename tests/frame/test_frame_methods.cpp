// The pandas-style spellings of issue 13 (Frame's methods, GroupBy, Rolling, Series, concat, printing, the SVD's
// structured binding), each checked against a serial computation on the gathered table (or NumPy's printed
// text, for arrays: the strings are what numpy 2 prints for the same values).
#include <algorithm>
#include <iostream>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "frame_test_util.hpp"
#include "slab/slab.hpp"

using namespace slab::frame;
using frame_test::Engine;

namespace {

constexpr std::int64_t kHour = 3'600'000'000'000;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// 10 rows: id, name (a null), x (NaNs), y, t (sorted timestamps); rank r holds a contiguous block.
LocalTable reference_table() {
  LocalTable all;
  all.add(LocalColumn::int64("id", {5, 3, 5, 1, 3, 5, 7, 1, 2, 5}))
      .add(LocalColumn::string("name", {"b", "a", "c", "b", "a", "b", "", "b", "c", "a"},
                               {1, 1, 1, 1, 1, 1, 0, 1, 1, 1}))
      .add(LocalColumn::float64("x", {1.0, kNaN, 2.5, -1.0, 4.0, 0.5, 3.0, 2.0, kNaN, 1.0}))
      .add(LocalColumn::int64("y", {10, 20, 30, 40, 50, 60, 70, 80, 90, 100}))
      .add(LocalColumn::timestamp("t", {0, kHour / 2, kHour, 3 * kHour, 3 * kHour + 1, 4 * kHour, 6 * kHour,
                                        6 * kHour + 5, 7 * kHour, 9 * kHour}));
  return all;
}

Frame spread(Engine& e, const LocalTable& all, std::int64_t rows_per_partition = 2) {
  int p = e.comm().size(), r = e.comm().rank();
  std::int64_t n = all.nrows();
  return Frame::from_local_table(e, all.slice(n * r / p, n * (r + 1) / p), rows_per_partition);
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::fabs(a - b) <= 1e-12 * (1 + std::fabs(b));
}

// Serial moments of the non-NaN values.
struct Ref {
  double sum = 0, mean = kNaN, var = kNaN, min = kNaN, max = kNaN;
  std::int64_t count = 0;
};
Ref reference(const std::vector<double>& v) {
  Ref r;
  std::vector<double> x;
  for (double a : v)
    if (!std::isnan(a)) x.push_back(a);
  r.count = static_cast<std::int64_t>(x.size());
  for (double a : x) r.sum += a;
  if (!x.empty()) {
    r.mean = r.sum / static_cast<double>(x.size());
    r.min = *std::min_element(x.begin(), x.end());
    r.max = *std::max_element(x.begin(), x.end());
  }
  if (x.size() >= 2) {
    double ss = 0;
    for (double a : x) ss += (a - r.mean) * (a - r.mean);
    r.var = ss / static_cast<double>(x.size() - 1);
  }
  return r;
}

}  // namespace

TEST(FrameMethods, GroupbyAggByPandasNames) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  LocalTable g =
      df.groupby({"id", "name"}).agg({{"x", {"mean", "sum", "count", "std"}}, {"y", {"min", "max"}}}).gather_all();
  EXPECT_EQ(g.names(),
            (std::vector<std::string>{"id", "name", "x_mean", "x_sum", "x_count", "x_std", "y_min", "y_max"}));
  std::map<std::pair<std::int64_t, std::string>, std::vector<std::size_t>> groups;  // dropna: null names dropped
  for (std::size_t i = 0; i < 10; ++i)
    if (!ref["name"].is_null(i)) groups[{ref["id"].ints[i], ref["name"].strings[i]}].push_back(i);
  ASSERT_EQ(g.nrows(), static_cast<std::int64_t>(groups.size()));
  std::size_t k = 0;
  for (const auto& [key, rows] : groups) {  // sorted by key, as the result
    std::vector<double> x;
    std::int64_t ymin = INT64_MAX, ymax = INT64_MIN;
    for (auto i : rows) {
      x.push_back(ref["x"].floats[i]);
      ymin = std::min(ymin, ref["y"].ints[i]);
      ymax = std::max(ymax, ref["y"].ints[i]);
    }
    Ref r = reference(x);
    EXPECT_EQ(g["id"].ints[k], key.first);
    EXPECT_EQ(g["name"].strings[k], key.second);
    EXPECT_TRUE(same(g["x_mean"].floats[k], r.mean)) << k;
    EXPECT_TRUE(same(g["x_sum"].floats[k], r.sum)) << k;
    EXPECT_EQ(g["x_count"].ints[k], r.count);
    EXPECT_TRUE(same(g["x_std"].floats[k], std::sqrt(r.var))) << k;
    EXPECT_EQ(g["y_min"].ints[k], ymin);
    EXPECT_EQ(g["y_max"].ints[k], ymax);
    ++k;
  }
}

TEST(FrameMethods, GroupbyNamedAggSizeAndWholeFrame) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  LocalTable g = df.groupby("id")
                     .agg({slab::named_agg("total", "x", "sum"),
                           {"n", "x", "count"},
                           slab::named_agg("again", "x", "sum"),
                           slab::named_agg("rows", "y", "size")})
                     .gather_all();
  EXPECT_EQ(g.names(), (std::vector<std::string>{"id", "total", "n", "again", "rows"}));
  std::map<std::int64_t, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < 10; ++i) groups[ref["id"].ints[i]].push_back(i);
  LocalTable sizes = df.groupby({"id"}).size().gather_all();
  LocalTable sums = df.groupby({"id"}).sum().gather_all();
  // After the collectives (the tables are replicated, so every rank asserts alike).
  ASSERT_EQ(g.nrows(), static_cast<std::int64_t>(groups.size()));
  ASSERT_EQ(sizes.nrows(), g.nrows());
  ASSERT_EQ(sums.nrows(), g.nrows());
  EXPECT_EQ(sizes.names(), (std::vector<std::string>{"id", "size"}));
  EXPECT_EQ(sums.names(), (std::vector<std::string>{"id", "x_sum", "y_sum"}));  // string and timestamp skipped
  std::size_t k = 0;
  for (const auto& [id, rows] : groups) {
    std::vector<double> x;
    std::int64_t ysum = 0;
    for (auto i : rows) {
      x.push_back(ref["x"].floats[i]);
      ysum += ref["y"].ints[i];
    }
    Ref r = reference(x);
    EXPECT_EQ(g["id"].ints[k], id);
    EXPECT_TRUE(same(g["total"].floats[k], r.sum));
    EXPECT_TRUE(same(g["again"].floats[k], r.sum));
    EXPECT_EQ(g["n"].ints[k], r.count);
    EXPECT_EQ(g["rows"].ints[k], static_cast<std::int64_t>(rows.size()));
    EXPECT_EQ(sizes["size"].ints[k], static_cast<std::int64_t>(rows.size()));
    EXPECT_TRUE(same(sums["x_sum"].floats[k], r.sum));
    EXPECT_EQ(sums["y_sum"].ints[k], ysum);
    ++k;
  }
  EXPECT_THROW((void)df.groupby("id").agg({{"x", {"mode"}}}), slab::InvalidArgument);
}

TEST(FrameMethods, MergeWithPandasKeywords) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  LocalTable rt;
  rt.add(LocalColumn::int64("k", {1, 3, 3, 9})).add(LocalColumn::float64("v", {0.1, 0.3, 0.33, 0.9}));
  Frame right = spread(e, rt, 1);
  // Left join on a shared name: every left row, once per matching right row; v null where none.
  Frame on_id = right.rename({{"k", "id"}});
  LocalTable left = df.merge(on_id, {.on = {"id"}, .how = "left"}).gather_all();
  std::multiset<std::pair<std::int64_t, double>> got, want;
  for (std::size_t i = 0; i < static_cast<std::size_t>(left.nrows()); ++i)
    got.insert({left["y"].ints[i], left["v"].is_null(i) ? -1.0 : left["v"].floats[i]});
  for (std::size_t i = 0; i < 10; ++i) {
    bool matched = false;
    for (std::size_t j = 0; j < 4; ++j)
      if (rt["k"].ints[j] == ref["id"].ints[i]) {
        want.insert({ref["y"].ints[i], rt["v"].floats[j]});
        matched = true;
      }
    if (!matched) want.insert({ref["y"].ints[i], -1.0});
  }
  EXPECT_EQ(got, want);
  // left_on / right_on, inner: the key once, under the left name.
  LocalTable inner = df.merge(right, {.left_on = {"id"}, .right_on = {"k"}, .how = "inner"}).gather_all();
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < 10; ++i)
    for (std::size_t j = 0; j < 4; ++j) pairs += rt["k"].ints[j] == ref["id"].ints[i] ? 1 : 0;
  EXPECT_EQ(inner.nrows(), pairs);
  auto names = inner.names();
  EXPECT_TRUE(std::find(names.begin(), names.end(), "id") != names.end());
  try {
    (void)df.merge(on_id, {.on = {"id"}, .how = "sideways"});
    ADD_FAILURE() << "no throw";
  } catch (const slab::InvalidArgument& err) {
    EXPECT_NE(std::string(err.what()).find("'sideways'"), std::string::npos) << err.what();
  }
}

TEST(FrameMethods, SortValuesSpellings) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  std::vector<std::size_t> order(10);
  for (std::size_t i = 0; i < 10; ++i) order[i] = i;
  // id ascending, name descending (nulls last), stable.
  auto by_id_name = order;
  std::stable_sort(by_id_name.begin(), by_id_name.end(), [&](std::size_t a, std::size_t b) {
    if (ref["id"].ints[a] != ref["id"].ints[b]) return ref["id"].ints[a] < ref["id"].ints[b];
    bool na = ref["name"].is_null(a), nb = ref["name"].is_null(b);
    if (na || nb) return !na && nb;
    return ref["name"].strings[a] > ref["name"].strings[b];
  });
  std::vector<std::int64_t> want;
  for (auto i : by_id_name) want.push_back(ref["y"].ints[i]);
  EXPECT_EQ(df.sort_values({{"id", true}, {"name", false}}).gather_all()["y"].ints, want);
  EXPECT_EQ(sort_values(df, {{"id", true}, {"name", false}}).gather_all()["y"].ints, want);  // the free function
  auto desc = order;
  std::stable_sort(desc.begin(), desc.end(), [&](std::size_t a, std::size_t b) {
    if (ref["id"].ints[a] != ref["id"].ints[b]) return ref["id"].ints[a] > ref["id"].ints[b];
    return ref["y"].ints[a] > ref["y"].ints[b];
  });
  want.clear();
  for (auto i : desc) want.push_back(ref["y"].ints[i]);
  EXPECT_EQ(df.sort_values({"id", "y"}, /*ascending=*/false).gather_all()["y"].ints, want);
  EXPECT_EQ(sort_values(df, {"id", "y"}, false).gather_all()["y"].ints, want);
  // The spellings, verbatim.
  Frame f = df.rename({{"id", "k1"}, {"y", "k2"}});
  EXPECT_EQ(f.sort_values({"k1", "k2"}, /*ascending=*/false).gather_all()["k2"].ints, want);
  Frame by_pairs = sort_values(f, {{"k1", true}, {"name", false}});
  EXPECT_EQ(by_pairs.gather_all()["k2"].ints, df.sort_values({{"id", true}, {"name", false}}).gather_all()["y"].ints);
  auto by_x = df.sort_values("x").gather_all();
  EXPECT_EQ(by_x["y"].ints, (std::vector<std::int64_t>{40, 60, 10, 100, 80, 30, 70, 50, 20, 90}));  // NaN last
}

TEST(FrameMethods, RollingRowsAndTimeAssignedBack) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  const auto& x = ref["x"].floats;
  const auto& t = ref["t"].ints;
  auto window_ref = [&](auto in_window, std::int64_t min_periods, int what) {
    std::vector<double> out;
    for (std::size_t i = 0; i < 10; ++i) {
      std::vector<double> v;
      std::int64_t rows = 0;
      for (std::size_t j = 0; j <= i; ++j)
        if (in_window(i, j)) {
          v.push_back(x[j]);
          ++rows;
        }
      Ref r = reference(v);
      std::int64_t have = what == 3 ? rows : r.count;
      double value = what == 0 ? r.sum : what == 1 ? r.mean : what == 2 ? r.var : static_cast<double>(r.count);
      out.push_back(have >= min_periods ? value : kNaN);
    }
    return out;
  };
  auto rows3 = [](std::size_t i, std::size_t j) { return j + 3 > i; };
  auto hours2 = [&](std::size_t i, std::size_t j) { return t[j] > t[i] - 2 * kHour; };
  slab::Series s = df.rolling(3)["x"].sum();
  EXPECT_EQ(s.name(), "x_sum");
  LocalColumn got = s.gather_all();
  auto want = window_ref(rows3, 3, 0);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(got.floats[i], want[i])) << i;
  got = df.rolling(3, 2)["x"].sum().gather_all();
  want = window_ref(rows3, 2, 0);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(got.floats[i], want[i])) << i;
  got = df.rolling("2h", "t")["x"].mean().gather_all();
  want = window_ref(hours2, 1, 1);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(got.floats[i], want[i])) << i;
  auto r = df.rolling("2h", "t");
  got = r.min_periods(2)["x"].var().gather_all();
  want = window_ref(hours2, 2, 2);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(got.floats[i], want[i])) << i << " " << got.floats[i];
  // Horizontal attach: same partitions (zero-copy pairing) and different partitions (rows moved).
  LocalTable with = df.assign("xs", df.rolling(3)["x"].sum()).gather_all();
  want = window_ref(rows3, 3, 0);
  EXPECT_EQ(with.names().back(), "xs");
  EXPECT_EQ(with["y"].ints, ref["y"].ints);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(with["xs"].floats[i], want[i])) << i;
  Frame other = spread(e, ref, 3);
  if (e.comm().size() > 1) other = concat({other});  // rebalanced: other row blocks than df's
  LocalTable moved = df.assign("y2", other["y"]).gather_all();
  EXPECT_EQ(moved["y2"].ints, ref["y"].ints);
  Frame shorter = Frame::from_local_table(e, e.comm().rank() == 0 ? ref.slice(0, 4) : ref.slice(0, 0));
  EXPECT_THROW((void)df.assign("z", shorter["y"]), slab::InvalidArgument);
  EXPECT_THROW((void)df.rolling(3).sum(), slab::InvalidArgument);  // no column selected
}

TEST(FrameMethods, SmallMethodsAndSeriesReductions) {
  Engine e;
  LocalTable ref = reference_table();
  Frame df = spread(e, ref);
  EXPECT_EQ(df.len(), 10);
  EXPECT_EQ(df.head(3)["y"].ints, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(df.tail(2)["y"].ints, (std::vector<std::int64_t>{90, 100}));
  EXPECT_EQ(df.filter(col("y") > 60).len(), 4);
  EXPECT_EQ(df.assign("z", col("y") * 2).gather_all()["z"].ints[9], 200);
  LocalTable renamed = df.rename({{"y", "why"}}).gather_all();
  EXPECT_EQ(renamed.names(), (std::vector<std::string>{"id", "name", "x", "why", "t"}));
  EXPECT_EQ(renamed["why"].ints, ref["y"].ints);
  EXPECT_EQ(df.select({"y", "id"}).gather_all().names(), (std::vector<std::string>{"y", "id"}));
  EXPECT_EQ((df[{"y", "id"}].gather_all().names()), (std::vector<std::string>{"y", "id"}));
  EXPECT_EQ(df.drop_duplicates({"id"}).len(), 5);
  EXPECT_EQ(df.dropna().len(), 7);  // x NaN twice, a null name once
  EXPECT_EQ(df.describe().nrows(), 8);
  EXPECT_EQ(df.nunique("name"), 3);
  EXPECT_EQ(df.value_counts("id")["count"].ints.front(), 4);  // id 5 four times
  slab::Series x = df["x"];
  Ref r = reference(ref["x"].floats);
  EXPECT_TRUE(same(x.sum(), r.sum));
  EXPECT_TRUE(same(x.mean(), r.mean));
  EXPECT_TRUE(same(x.var(), r.var));
  EXPECT_TRUE(same(x.std(), std::sqrt(r.var)));
  EXPECT_EQ(x.min(), r.min);
  EXPECT_EQ(x.max(), r.max);
  EXPECT_EQ(x.count(), 8);
  EXPECT_EQ(df["name"].count(), 9);
  EXPECT_EQ(df["id"].nunique(), 5);
  EXPECT_EQ(df["y"].sum(), 550);
  EXPECT_EQ(df["id"].value_counts()["id"].ints.front(), 5);
  EXPECT_EQ(df["y"].head(2)["y"].ints, (std::vector<std::int64_t>{10, 20}));
  EXPECT_THROW((void)df["name"].sum(), slab::TypeError);
  EXPECT_THROW((void)df["nope"], slab::InvalidArgument);
}

TEST(FrameMethods, ConcatUnifiesDictionariesAndChecksSchemas) {
  Engine e;
  LocalTable a = reference_table();
  LocalTable b;
  b.add(LocalColumn::int64("id", {8, 9, 9}))
      .add(LocalColumn::string("name", {"zed", "a", "émile"}))
      .add(LocalColumn::float64("x", {7.0, kNaN, 9.0}))
      .add(LocalColumn::int64("y", {110, 120, 130}))
      .add(LocalColumn::timestamp("t", {10 * kHour, 11 * kHour, 12 * kHour}));
  // b on rank 0 only: ranks with no rows take part.
  Frame fb = Frame::from_local_table(e, e.comm().rank() == 0 ? b : b.slice(0, 0));
  Frame both = slab::concat({spread(e, a), fb});
  LocalTable got = both.gather_all();
  LocalTable want = concat(std::vector<LocalTable>{a, b});
  EXPECT_EQ(got["y"].ints, want["y"].ints);
  EXPECT_EQ(got["name"].strings, want["name"].strings);
  EXPECT_EQ(got["name"].is_null(6), true);
  EXPECT_EQ(both.local_len(), 13 * (e.comm().rank() + 1) / e.comm().size() - 13 * e.comm().rank() / e.comm().size());
  EXPECT_EQ(both.rolling(2)["y"].sum().gather_all().floats.back(), 250.0);
  try {
    (void)slab::concat({spread(e, a), fb.rename({{"x", "w"}})});
    ADD_FAILURE() << "no throw";
  } catch (const slab::InvalidArgument& err) {
    EXPECT_NE(std::string(err.what()).find("'w'"), std::string::npos) << err.what();
  }
}

TEST(FrameMethods, FewerRowsThanRanks) {
  Engine e;
  LocalTable ref = reference_table().slice(0, 2);
  Frame df = spread(e, ref, 1);
  EXPECT_EQ(df.len(), 2);
  LocalTable g = df.groupby("id").agg({{"y", {"sum"}}}).gather_all();
  EXPECT_EQ(g["y_sum"].ints, (std::vector<std::int64_t>{20, 10}));
  EXPECT_EQ(df["y"].sum(), 30);
  EXPECT_TRUE(std::isnan(df["x"].std()));  // one value
  EXPECT_EQ(df.assign("s", df.rolling(2, 1)["y"].sum()).gather_all()["s"].floats, (std::vector<double>{10.0, 30.0}));
  EXPECT_EQ(slab::concat({df, df}).gather_all()["y"].ints, (std::vector<std::int64_t>{10, 20, 10, 20}));
  EXPECT_EQ(df.sort_values("y", false).gather_all()["y"].ints, (std::vector<std::int64_t>{20, 10}));
}

TEST(FrameMethods, PrintFramesAndTables) {
  Engine e;
  LocalTable t;
  t.add(LocalColumn::string("café", {"é", "b"})).add(LocalColumn::int64("n", {1, 22}));
  std::string text = to_string(t);
  // pandas: the header and the rows line up by characters ("café" is 4 wide, its bytes 5).
  EXPECT_EQ(text, "   café   n\n0     é   1\n1     b  22\n");
  Frame df = Frame::from_local_table(e, e.comm().rank() == 0 ? t : t.slice(0, 0));
  std::ostringstream os;
  os << df;
  EXPECT_EQ(os.str(), e.comm().rank() == 0 ? text : "");
  std::ostringstream ts;
  ts << t;
  EXPECT_EQ(ts.str(), text);
}

TEST(FrameMethods, PrintArraysLikeNumpy) {
  Engine e;
  auto str = [](const auto& a) {
    std::ostringstream os;
    os << a;
    return std::make_pair(os.str(), slab::to_string(a));
  };
  using slab::Split;
  auto a = slab::Array<double>::from_function(e, slab::Shape{3}, Split::rows, [](std::int64_t i, std::int64_t) {
    return i == 1 ? 2.5 : static_cast<double>(i + 1);
  });
  auto [printed, text] = str(a);
  EXPECT_EQ(text, "array([1. , 2.5, 3. ])");  // np.array([1, 2.5, 3])
  EXPECT_EQ(printed, e.comm().rank() == 0 ? text : "");
  auto ints = slab::arange<std::int64_t>(e, 0, 2000, 1, Split::rows);
  EXPECT_EQ(slab::to_string(ints), "array([   0,    1,    2, ..., 1997, 1998, 1999])");  // np.arange(2000)
  auto m = slab::Array<double>::from_function(e, slab::Shape{2, 2}, Split::rows,
                                              [](std::int64_t i, std::int64_t j) { return 1.0 + 2 * i + j; });
  EXPECT_EQ(slab::to_string(m), "array([[1., 2.],\n       [3., 4.]])");
  auto big = slab::Array<std::int64_t>::from_function(e, slab::Shape{100, 100}, Split::rows,
                                                      [](std::int64_t i, std::int64_t j) { return 100 * i + j; });
  // np.arange(10000).reshape(100, 100)
  EXPECT_EQ(slab::to_string(big),
            "array([[   0,    1,    2, ...,   97,   98,   99],\n"
            "       [ 100,  101,  102, ...,  197,  198,  199],\n"
            "       [ 200,  201,  202, ...,  297,  298,  299],\n"
            "       ...,\n"
            "       [9700, 9701, 9702, ..., 9797, 9798, 9799],\n"
            "       [9800, 9801, 9802, ..., 9897, 9898, 9899],\n"
            "       [9900, 9901, 9902, ..., 9997, 9998, 9999]])");
  // Host values (svd's s) print as the same 1-D array would.
  EXPECT_EQ(slab::to_string(std::vector<double>{1, 2.5, 3}), "array([1. , 2.5, 3. ])");
  std::vector<std::int64_t> range(2000);
  for (std::size_t i = 0; i < range.size(); ++i) range[i] = static_cast<std::int64_t>(i);
  EXPECT_EQ(slab::to_string(range), "array([   0,    1,    2, ..., 1997, 1998, 1999])");
  EXPECT_EQ(slab::to_string(std::vector<double>{}), "array([], dtype=float64)");  // np.array([], dtype=float)
  // engine.out(): std::cout on rank 0, a sink elsewhere.
  EXPECT_EQ(&e.out() == &std::cout, e.comm().rank() == 0);
  e.out() << "written by rank 0 only\n";
  EXPECT_TRUE(e.out().good());
}

TEST(FrameMethods, SvdUnpacksIntoThree) {
  Engine e;
  auto x = slab::random_uniform(e, slab::Shape{40, 3}, slab::Split::rows, 7);
  auto [u, s, vt] = slab::linalg::svd(x);
  EXPECT_EQ(u.rows(), 40);
  EXPECT_EQ(u.cols(), 3);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(vt.size(), 9u);
  EXPECT_GE(s[0], s[1]);
  // The Frobenius norm is kept: sum of s^2 = sum of x^2.
  double fro = 0, ss = 0;
  for (double v : x.gather_all()) fro += v * v;
  for (double v : s) ss += v * v;
  EXPECT_NEAR(ss, fro, 1e-9 * fro);
}

#ifdef SLAB_METHODS_GOLDEN
// The same spellings against pandas' answers (tests/frame/golden/make_methods_golden.py writes them).
TEST(FrameMethods, MatchesPandas) {
  Engine e;
  std::map<std::string, std::vector<double>> golden;
  std::ifstream in(SLAB_METHODS_GOLDEN);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto a = line.find(','), b = line.rfind(',');
    golden[line.substr(0, a)].push_back(std::stod(line.substr(b + 1)));  // stod reads "nan"
  }
  EXPECT_EQ(golden.size(), 14u);
  Frame df = spread(e, reference_table());
  auto check = [&](const std::string& what, const std::vector<double>& got) {
    const auto& want = golden[what];
    EXPECT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
      EXPECT_TRUE(same(got[i], want[i])) << what << "[" << i << "]: " << got[i] << " vs pandas " << want[i];
  };
  auto doubles = [](const LocalColumn& c) {
    std::vector<double> v;
    for (std::size_t i = 0; i < c.size(); ++i) v.push_back(c.as_double(i));
    return v;
  };
  LocalTable g =
      df.groupby({"id", "name"}).agg({{"x", {"mean", "sum", "count", "std"}}, {"y", {"min", "max"}}}).gather_all();
  for (const char* c : {"id", "x_mean", "x_sum", "x_count", "x_std", "y_min", "y_max"})
    check(std::string("groupby.") + c, doubles(g[c]));
  check("rolling3.sum", df.rolling(3)["x"].sum().gather_all().floats);
  check("rolling3mp2.sum", df.rolling(3, 2)["x"].sum().gather_all().floats);
  check("rolling3.count", df.rolling(3)["x"].count().gather_all().floats);
  check("rolling2h.mean", df.rolling("2h", "t")["x"].mean().gather_all().floats);
  check("rolling2hmp2.var", df.rolling("2h", "t", 2)["x"].var().gather_all().floats);
  check("rolling2h.max", df.rolling("2h", "t")["x"].max().gather_all().floats);
  slab::Series x = df["x"];
  check("series.x", {x.sum(), x.mean(), x.std(), x.var(), x.min(), x.max(), static_cast<double>(x.count()),
                     static_cast<double>(x.nunique())});
}
#endif
