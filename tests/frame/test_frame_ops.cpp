#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "frame_test_util.hpp"
#include "slab/frame/datasets.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/shuffle.hpp"

using namespace slab::frame;
using frame_test::Engine;

namespace {
// 10 rows spread over ranks in rank order (rank r gets rows with r == row % p contiguous blocks).
Frame small_frame(Engine& e, LocalTable* whole = nullptr) {
  std::vector<std::int64_t> a = {5, 3, 5, 1, 3, 5, 7, 1, 2, 5};
  std::vector<double> x = {1.0, std::nan(""), 2.5, -1.0, 4.0, 0.5, 3.0, 2.0, std::nan(""), 1.0};
  std::vector<std::string> s = {"b", "a", "c", "b", "a", "d", "", "b", "c", "a"};
  std::vector<std::uint8_t> sv = {1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
  LocalTable all;
  all.add(LocalColumn::int64("a", a)).add(LocalColumn::float64("x", x)).add(LocalColumn::string("s", s, sv));
  if (whole) *whole = all;
  int p = e.comm().size(), r = e.comm().rank();
  std::int64_t b = 10 * r / p, en = 10 * (r + 1) / p;
  return Frame::from_local_table(e, all.slice(b, en), 2);
}
}  // namespace

TEST(FrameOps, FilterAssignSelect) {
  Engine e;
  LocalTable ref;
  Frame f = small_frame(e, &ref);
  auto g = filter(f, col("x") > 0.9 & col("s") != "a").gather_all();
  std::vector<std::int64_t> expect;
  for (std::size_t i = 0; i < 10; ++i)
    if (!ref["x"].is_null(i) && ref["x"].floats[i] > 0.9 && (ref["s"].is_null(i) || ref["s"].strings[i] != "a"))
      expect.push_back(ref["a"].ints[i]);
  EXPECT_EQ(g["a"].ints, expect);  // rows 0 (b,1.0), 2 (c,2.5), 6 (null,3.0), 7 (b,2.0)
  EXPECT_EQ(expect, (std::vector<std::int64_t>{5, 5, 7, 1}));
  auto a2 = assign(f, "z", col("a") * 2 + col("x")).gather_all();
  for (std::size_t i = 0; i < 10; ++i) {
    if (ref["x"].is_null(i))
      EXPECT_TRUE(a2["z"].is_null(i));
    else
      EXPECT_DOUBLE_EQ(a2["z"].floats[i], 2.0 * ref["a"].ints[i] + ref["x"].floats[i]);
  }
  auto sel = select(f, {"s", "a"}).gather_all();
  EXPECT_EQ(sel.names(), (std::vector<std::string>{"s", "a"}));
  auto isn = filter(f, col("s").isin({std::string("c"), std::string("d")})).gather_all();
  EXPECT_EQ(isn["a"].ints, (std::vector<std::int64_t>{5, 5, 2}));
  EXPECT_EQ(filter(f, col("x").isnull()).len(), 2);
  EXPECT_THROW((void)filter(f, col("nope") > 1), slab::InvalidArgument);
}

TEST(FrameOps, NullsFillDropAstype) {
  Engine e;
  LocalTable ref;
  Frame f = small_frame(e, &ref);
  EXPECT_EQ(dropna(f).len(), 7);
  EXPECT_EQ(dropna(f, {"s"}).len(), 9);
  auto fl = fillna(f, 0.0, {"x"}).gather_all();
  EXPECT_EQ(fl["x"].floats[1], 0.0);
  auto fs = fillna(f, std::string("zz"), {"s"}).gather_all();
  EXPECT_EQ(fs["s"].strings[6], "zz");
  EXPECT_EQ(fs["s"].strings[0], "b");
  auto ai = astype(f, "x", ElementType::int64).gather_all();
  EXPECT_TRUE(ai["x"].is_null(1));
  EXPECT_EQ(ai["x"].ints[2], 2);
  auto d = dtypes(f);
  EXPECT_EQ(d[2].second, ElementType::string);
}

// fillna with a float that is not an integer fills float columns only: pandas refuses 2.5 for an Int64 column
// (pandas 3.1.1: pd.Series([1, None], dtype="Int64").fillna(2.5) raises TypeError "Invalid value '2.5' for dtype
// 'Int64'"; .fillna(2.0) gives [1, 2]); slab truncated it to 2. Naming the column throws TypeError on every rank.
TEST(FrameOps, FillnaWithAFractionLeavesIntegerColumnsAsPandas) {
  Engine e;
  LocalTable all;
  all.add(LocalColumn::int64("i", {1, 0, 3, 0}, {1, 0, 1, 0}))
      .add(LocalColumn::float64("x", {0.5, std::nan(""), 1.5, std::nan("")}));
  const int p = e.comm().size(), r = e.comm().rank();
  Frame f = Frame::from_local_table(e, all.slice(4 * r / p, 4 * (r + 1) / p), 1);
  auto g = fillna(f, 2.5).gather_all();
  EXPECT_EQ(g["x"].floats, (std::vector<double>{0.5, 2.5, 1.5, 2.5}));
  EXPECT_TRUE(g["i"].is_null(1) && g["i"].is_null(3));
  EXPECT_EQ(g["i"].ints[2], 3);
  auto h = fillna(f, 2.0).gather_all();
  EXPECT_FALSE(h["i"].is_null(1));
  EXPECT_EQ(h["i"].ints[1], 2);
  EXPECT_EQ(h["x"].floats[3], 2.0);
  try {
    (void)fillna(f, 2.5, {"x", "i"});
    ADD_FAILURE() << "no TypeError for fillna(2.5) of an int64 column";
  } catch (const slab::TypeError& err) {
    const std::string msg = err.message();
    EXPECT_NE(msg.find("'i'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2.5"), std::string::npos) << msg;
  }
  EXPECT_THROW((void)fillna(f, 1e300, {"i"}), slab::TypeError);
}

TEST(FrameOps, Describe) {
  Engine e;
  Frame f = small_frame(e);
  auto d = describe(f);
  ASSERT_EQ(d.ncols(), 2u);
  // a = {5,3,5,1,3,5,7,1,2,5}: count 10, mean 3.7, min 1, max 7, median 4.
  EXPECT_EQ(d["a"].floats[0], 10);
  EXPECT_DOUBLE_EQ(d["a"].floats[1], 3.7);
  EXPECT_EQ(d["a"].floats[3], 1);
  EXPECT_DOUBLE_EQ(d["a"].floats[5], 4.0);
  EXPECT_EQ(d["a"].floats[7], 7);
  EXPECT_EQ(d["x"].floats[0], 8);
  EXPECT_NE(to_string(d).find("mean"), std::string::npos);
}

// describe() against a serial reference (NumPy's quantile formula) where the rows sit on rank 0 only (the other
// ranks have none), with an infinity (mean inf, std NaN as pandas), an all-null column (count 0, the rest NaN) and
// a column of 1000 distinct values whose quartiles are order statistics of the distributed sort.
TEST(FrameOps, DescribeOnRanksWithoutRowsFollowsPandas) {
  Engine e;
  const std::int64_t n = 1000;
  std::vector<double> v, inf, none;
  std::vector<std::uint8_t> none_valid;
  for (std::int64_t i = 0; i < n; ++i) {
    v.push_back(static_cast<double>((i * 7919) % n) * 0.5 - 100.0);
    inf.push_back(i == 3 ? std::numeric_limits<double>::infinity() : static_cast<double>(i % 5));
    none.push_back(0.0);
    none_valid.push_back(0);
  }
  LocalTable all;
  all.add(LocalColumn::float64("v", v))
      .add(LocalColumn::float64("inf", inf))
      .add(LocalColumn::float64("none", none, none_valid));
  const Frame f = Frame::from_local_table(e, e.comm().rank() == 0 ? all : all.slice(0, 0), 64);
  const LocalTable d = describe(f);
  ASSERT_EQ(d.ncols(), 3u);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const auto q = [&](double p) {
    const double pos = p * static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min<std::size_t>(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0, m2 = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(n);
  for (double x : v) m2 += (x - mean) * (x - mean);
  const std::vector<double>& dv = d["v"].floats;
  EXPECT_EQ(dv[0], static_cast<double>(n));
  EXPECT_NEAR(dv[1], mean, 1e-12 * std::abs(mean) + 1e-12);
  EXPECT_NEAR(dv[2], std::sqrt(m2 / static_cast<double>(n - 1)), 1e-12 * std::sqrt(m2));
  EXPECT_EQ(dv[3], sorted.front());
  EXPECT_EQ(dv[4], q(0.25));
  EXPECT_EQ(dv[5], q(0.5));
  EXPECT_EQ(dv[6], q(0.75));
  EXPECT_EQ(dv[7], sorted.back());
  const std::vector<double>& di = d["inf"].floats;
  EXPECT_EQ(di[0], static_cast<double>(n));
  EXPECT_EQ(di[1], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(di[2]));
  EXPECT_EQ(di[7], std::numeric_limits<double>::infinity());
  EXPECT_EQ(di[5], 2.0);
  const std::vector<double>& dn = d["none"].floats;
  EXPECT_EQ(dn[0], 0.0);
  for (std::size_t k = 1; k < 8; ++k) EXPECT_TRUE(std::isnan(dn[k])) << d.labels[k];
}

TEST(FrameOps, ShuffleValueCountsUniqueDuplicates) {
  Engine e;
  LocalTable ref;
  Frame f = small_frame(e, &ref);
  Frame sh = shuffle(f, {"a"}, 2);
  auto g = sh.gather_all();
  EXPECT_EQ(g.nrows(), 10);
  // Every key lives in one partition only.
  std::map<std::int64_t, int> owner;
  bool ok = true;
  {
    auto rows = sh.local_partition_rows();
    auto local = sh.local_table();
    std::int64_t at = 0;
    for (std::size_t j = 0; j < rows.size(); ++j)
      for (std::int64_t i = 0; i < rows[j]; ++i, ++at) {
        auto k = local["a"].ints[at];
        int id = e.comm().rank() * 2 + static_cast<int>(j);
        if (owner.count(k) && owner[k] != id) ok = false;
        owner[k] = id;
      }
  }
  EXPECT_TRUE(ok);
  auto vc = value_counts(f, "a");
  EXPECT_EQ(vc["a"].ints, (std::vector<std::int64_t>{5, 1, 3, 2, 7}));
  EXPECT_EQ(vc["count"].ints, (std::vector<std::int64_t>{4, 2, 2, 1, 1}));
  auto vs = value_counts(f, "s");
  EXPECT_EQ(vs["s"].strings, (std::vector<std::string>{"a", "b", "c", "d"}));
  auto u = unique(f, "s");
  EXPECT_EQ(u.nrows(), 5);  // a b c d null
  EXPECT_TRUE(u.columns[0].is_null(4));
  EXPECT_EQ(nunique(f, "s"), 4);
  EXPECT_EQ(nunique(f, "a"), 5);
  // Distinct (a, s): (5,b) (3,a) (5,c) (1,b) (5,d) (7,null) (2,c) (5,a).
  EXPECT_EQ(drop_duplicates(f, {"a", "s"}).len(), 8);
}

TEST(FrameOps, CumsumShiftDiff) {
  Engine e;
  LocalTable ref;
  Frame f = small_frame(e, &ref);
  auto c = cumsum(f, {"a", "x"}).gather_all();
  std::int64_t s = 0;
  double sx = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    s += ref["a"].ints[i];
    EXPECT_EQ(c["a"].ints[i], s);
    if (ref["x"].is_null(i)) {
      EXPECT_TRUE(c["x"].is_null(i));
    } else {
      sx += ref["x"].floats[i];
      EXPECT_DOUBLE_EQ(c["x"].floats[i], sx);
    }
  }
  for (std::int64_t k : {1, 2, 3, -1, -4}) {
    auto sh = shift(f, k).gather_all();
    auto d = diff(f, k, {"a"}).gather_all();
    for (std::int64_t i = 0; i < 10; ++i) {
      std::int64_t src = i - k;
      bool in = src >= 0 && src < 10;
      EXPECT_EQ(sh["a"].is_null(i), !in) << k << " " << i;
      EXPECT_EQ(d["a"].is_null(i), !in);
      if (in) {
        EXPECT_EQ(sh["a"].ints[i], ref["a"].ints[src]);
        EXPECT_EQ(sh["s"].is_null(i), ref["s"].is_null(src));
        EXPECT_EQ(d["a"].ints[i], ref["a"].ints[i] - ref["a"].ints[src]);
      }
    }
  }
}

TEST(FrameOps, RanksWithNoRowsOps) {
  Engine e;
  LocalTable t;
  std::vector<std::int64_t> v;
  if (e.comm().rank() == 0) v = {1, 2, 3};
  t.add(LocalColumn::int64("v", v));
  Frame f = Frame::from_local_table(e, t);
  EXPECT_EQ(cumsum(f).gather_all()["v"].ints, (std::vector<std::int64_t>{1, 3, 6}));
  auto d = diff(f).gather_all();
  EXPECT_TRUE(d["v"].is_null(0));
  EXPECT_EQ(d["v"].ints[2], 1);
  EXPECT_EQ(nunique(f, "v"), 3);
  EXPECT_EQ(head(f, 2).nrows(), 2);
  EXPECT_EQ(tail(f, 5).nrows(), 3);
}

// '/', '//' and '%' in expressions, against pandas 3.1.1 (perf/.venv): with A, B nullable Int64 (slab's int64
// columns with nulls) and x, y float64 Series of the values below,
//   list(A // B), list(A % B), (A / B).tolist(), (x // y).tolist(), (x % y).tolist().
// Before: there was no floor division or modulo in expressions.
TEST(FrameOps, DivisionOperatorsFollowPandas) {
  Engine e;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const std::vector<std::int64_t> a = {7, -7, 7, -7, 0, 5, -5, 0, 0, 3};
  const std::vector<std::uint8_t> av = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1};  // row 8 null
  const std::vector<std::int64_t> b = {2, 2, -2, -2, 3, 0, 0, 0, 1, 0};
  const std::vector<std::uint8_t> bv = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0};  // row 9 null
  const std::vector<double> x = {7.5, -7.5, 1.0, -1.0, 0.0, nan, inf, -5.0, 5.5, 1.0};
  const std::vector<double> y = {2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0, inf, -2.0, 1.0};
  LocalTable all;
  all.add(LocalColumn::int64("a", a, av)).add(LocalColumn::int64("b", b, bv));
  all.add(LocalColumn::float64("x", x)).add(LocalColumn::float64("y", y));
  const int p = e.comm().size(), r = e.comm().rank();
  // Rows in rank order; at 2-4 ranks rank 0 holds none and ranks 1.. share the 10 rows.
  std::int64_t lo = 0, hi = 10;
  if (p > 1) lo = r == 0 ? 0 : 10 * (r - 1) / (p - 1), hi = r == 0 ? 0 : 10 * r / (p - 1);
  Frame f = Frame::from_local_table(e, all.slice(lo, hi), 3);
  Frame g = assign(assign(assign(f, "fd", floordiv(col("a"), col("b"))), "md", col("a") % col("b")), "td",
                   col("a") / col("b"));
  g = assign(assign(g, "xf", col("x").floordiv(col("y"))), "xm", col("x").mod(col("y")));
  const LocalTable t = g.gather_all();
  EXPECT_EQ(t["fd"].type, ElementType::int64);
  EXPECT_EQ(t["td"].type, ElementType::float64);
  EXPECT_EQ(t.nrows(), 10);
  if (t.nrows() != 10) return;
  const std::vector<std::int64_t> want_fd = {3, -4, -4, 3, 0, 0, 0, 0}, want_md = {1, 1, -1, -1, 0, 0, 0, 0};
  const std::vector<double> want_td = {3.5, -3.5, -3.5, 3.5, 0.0, inf, -inf, nan};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(t["fd"].ints[i], want_fd[i]) << i;
    EXPECT_EQ(t["md"].ints[i], want_md[i]) << i;
    EXPECT_TRUE(t["td"].floats[i] == want_td[i] || (std::isnan(want_td[i]) && std::isnan(t["td"].floats[i]))) << i;
  }
  for (std::size_t i : {std::size_t{8}, std::size_t{9}})  // a null operand: null, as pandas' <NA>
    EXPECT_TRUE(t["fd"].is_null(i) && t["md"].is_null(i) && t["td"].is_null(i)) << i;
  const std::vector<double> want_xf = {3.0, -4.0, inf, -inf, nan, nan, nan, -1.0, -3.0, 1.0};
  const std::vector<double> want_xm = {1.5, 0.5, nan, nan, nan, nan, nan, inf, -0.5, 0.0};
  for (std::size_t i = 0; i < 10; ++i) {
    const double xf = t["xf"].floats[i], xm = t["xm"].floats[i];
    EXPECT_TRUE(xf == want_xf[i] || (std::isnan(xf) && std::isnan(want_xf[i]))) << i << ": " << xf;
    EXPECT_TRUE(xm == want_xm[i] || (std::isnan(xm) && std::isnan(want_xm[i]))) << i << ": " << xm;
  }
  EXPECT_EQ(floordiv(col("a"), col("b")).to_string(), "(a // b)");
  EXPECT_EQ((col("a") % 2).to_string(), "(a % 2)");
  // Timestamps have no floor division.
  LocalTable ts;
  ts.add(LocalColumn::timestamp("t", {1, 2}));
  EXPECT_THROW((void)assign(Frame::from_local_table(e, ts), "q", floordiv(col("t"), 2)), slab::TypeError);
}

// head(-n) / tail(-n) are all rows but the last / first n, as in pandas (df.head(-3): rows 0-6 of 10).
// Before: head(-3) was empty and tail(-3) every row.
TEST(FrameOps, HeadTailNegative) {
  Engine e;
  Frame f = small_frame(e);  // a = 5 3 5 1 3 5 7 1 2 5
  EXPECT_EQ(head(f, -3)["a"].ints, (std::vector<std::int64_t>{5, 3, 5, 1, 3, 5, 7}));
  EXPECT_EQ(tail(f, -3)["a"].ints, (std::vector<std::int64_t>{1, 3, 5, 7, 1, 2, 5}));
  EXPECT_EQ(tail(f, -3).index, (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(head(f, -10).nrows(), 0);
  EXPECT_EQ(tail(f, -12).nrows(), 0);
  EXPECT_EQ(head(f, 3)["a"].ints, (std::vector<std::int64_t>{5, 3, 5}));
  EXPECT_EQ(tail(f, 2)["a"].ints, (std::vector<std::int64_t>{2, 5}));
  EXPECT_EQ(head(f, 0).nrows(), 0);
}
