// groupby's median/quantile and the per-group row-preserving operations (cumsum, cumcount, shift, diff,
// ffill/bfill, transform, rolling) against pandas: golden/input.csv and golden/golden.csv are written by
// golden/make_groupby_golden.py (its docstring gives the regenerate command). The input is read by the small
// reader below (not slab's), spread over the ranks in several layouts (balanced blocks, everything on the last
// rank, a rank without rows) and partitions; each result is gathered to every rank and compared there: integers,
// booleans, strings and timestamps exactly, floats to 1e-12 relative, nulls by position.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/core/version.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/groupby_transform.hpp"
#include "slab/frame/ops.hpp"
#include "test_engine.hpp"

namespace sf = slab::frame;
using slab::ElementType;
using slab::testing::Engine;

namespace {

std::string golden_path(const std::string& name) { return std::string(SLAB_GROUPBY_GOLDEN_DIR) + "/" + name; }

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

/// input.csv as a table: k (int64, nulls), s (string, nulls), x (float64, NaN), v, hot, u, one (int64), b (bool),
/// t (timestamp ns, nulls).
sf::LocalTable read_input() {
  std::ifstream f(golden_path("input.csv"));
  if (!f) throw std::runtime_error("cannot open " + golden_path("input.csv"));
  std::string line;
  std::getline(f, line);
  const std::vector<std::string> header = split(line);
  std::map<std::string, sf::LocalColumn> cols;
  auto type_of = [](const std::string& name) {
    if (name == "s") return ElementType::string;
    if (name == "x") return ElementType::float64;
    if (name == "b") return ElementType::boolean;
    if (name == "t") return ElementType::timestamp;
    return ElementType::int64;
  };
  for (const auto& h : header) {
    cols[h].name = h;
    cols[h].type = type_of(h);
  }
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields = split(line);
    fields.resize(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      sf::LocalColumn& col = cols[header[c]];
      const std::string& v = fields[c];
      col.valid.push_back(v.empty() ? 0 : 1);
      switch (col.type) {
        case ElementType::string:
          col.strings.push_back(v);
          break;
        case ElementType::float64:
          col.floats.push_back(v.empty() ? std::nan("") : std::strtod(v.c_str(), nullptr));
          break;
        case ElementType::boolean:
          col.bools.push_back(v == "True" ? 1 : 0);
          break;
        default:
          col.ints.push_back(v.empty() ? 0 : std::stoll(v));
          break;
      }
    }
  }
  sf::LocalTable t;
  for (const auto& h : header) {
    sf::LocalColumn c = cols[h];
    if (c.type == ElementType::float64) c.valid.clear();  // NaN is the null
    t.add(std::move(c));
  }
  return t;
}

/// golden.csv: case -> its values (one per row or group; "" = null), and the cases in file order.
struct Golden {
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> order;
};
const Golden& golden_file() {
  static const Golden g = [] {
    Golden out;
    std::ifstream f(golden_path("golden.csv"));
    if (!f) throw std::runtime_error("cannot open " + golden_path("golden.csv"));
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty()) continue;
      std::vector<std::string> fields = split(line);
      out.values[fields[0]] = std::vector<std::string>(fields.begin() + 1, fields.end());
      out.order.push_back(fields[0]);
    }
    return out;
  }();
  return g;
}
const std::map<std::string, std::vector<std::string>>& golden() { return golden_file().values; }

/// Whether cell r of c is golden field f ("" = null); pandas prints some int64 and boolean results as floats
/// ("1.0": the NaN of a null key made the column float64), so integers and booleans compare by value.
bool matches(const sf::LocalColumn& c, std::size_t r, const std::string& f, std::string& why) {
  const bool null = c.is_null(r);
  if (f.empty() || null) {
    if (f.empty() && null) return true;
    why = null ? "null, expected " + f : "expected null";
    return false;
  }
  switch (c.type) {
    case ElementType::float64: {
      // 1e-12 relative, and 1e-11 absolute (the input's values are below 100, so 1e-13 of their scale): a
      // rolling sum that pandas gets as exactly 0 is a running sum's residue of ~1e-15 in slab.
      const double want = std::strtod(f.c_str(), nullptr), got = c.floats[r];
      if (got == want || std::fabs(got - want) <= 1e-12 * std::max(std::fabs(got), std::fabs(want)) + 1e-11)
        return true;
      why = "got " + std::to_string(got) + ", expected " + f;
      return false;
    }
    case ElementType::int64:
    case ElementType::timestamp: {
      const bool as_float = f.find_first_of(".e") != std::string::npos;
      const bool ok =
          as_float ? static_cast<double>(c.ints[r]) == std::strtod(f.c_str(), nullptr) : c.ints[r] == std::stoll(f);
      if (!ok) why = "got " + std::to_string(c.ints[r]) + ", expected " + f;
      return ok;
    }
    case ElementType::boolean:  // pandas makes booleans float64 (0.0, 1.0) when a null key adds NaN
      if ((f == "True" || f == "1.0") == (c.bools[r] != 0) && (f == "True" || f == "False" || f == "1.0" || f == "0.0"))
        return true;
      why = std::string("got ") + (c.bools[r] ? "True" : "False") + ", expected " + f;
      return false;
    case ElementType::string:
      if (c.strings[r] == f) return true;
      why = "got " + c.strings[r] + ", expected " + f;
      return false;
  }
  return false;
}

void expect_column(const sf::LocalColumn& got, const std::string& gcase) {
  SCOPED_TRACE(gcase);
  const auto it = golden().find(gcase);
  ASSERT_NE(it, golden().end()) << "no golden case " << gcase;  // no collective follows in the caller's loop body
  const std::vector<std::string>& want = it->second;
  ASSERT_EQ(got.size(), want.size());
  int failures = 0;
  for (std::size_t r = 0; r < want.size() && failures < 5; ++r) {
    std::string why;
    if (!matches(got, r, want[r], why)) {
      ADD_FAILURE() << "row " << r << ": " << why;
      ++failures;
    }
  }
}

/// How the input's rows are spread: rank r holds rows [begin, end) of r, in partitions of `rows` rows.
struct Layout {
  const char* name;
  std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t n, int r, int p)> range;
  std::int64_t rows;
};
const std::vector<Layout>& layouts() {
  static const std::vector<Layout> l = {
      {"balanced", [](std::int64_t n, int r, int p) { return std::make_pair(n * r / p, n * (r + 1) / p); }, 7},
      {"last rank only",
       [](std::int64_t n, int r, int p) {
         return r == p - 1 ? std::make_pair<std::int64_t>(0, n) : std::make_pair(n, n);
       },
       23},
      {"rank 1 empty",  // ranks 0 and 2.. share the rows; rank 1 has none
       [](std::int64_t n, int r, int p) {
         if (p == 1) return std::make_pair<std::int64_t>(0, n);
         const int q = p - 1, s = r == 0 ? 0 : r == 1 ? -1 : r - 1;
         if (s < 0) return std::make_pair(n, n);
         return std::make_pair(n * s / q, n * (s + 1) / q);
       },
       9},
  };
  return l;
}

sf::Frame spread(Engine& e, const sf::LocalTable& all, const Layout& layout) {
  const auto [b, en] = layout.range(all.nrows(), e.comm().rank(), e.comm().size());
  return sf::Frame::from_local_table(e, all.slice(b, en), layout.rows);
}

sf::GroupBy grouper(const sf::Frame& f, const std::string& name) {
  if (name == "kna") return f.groupby("k").dropna(false);
  if (name == "sna") return f.groupby("s").dropna(false);
  if (name == "ks") return f.groupby({"k", "s"});
  return f.groupby(name);
}

using Op = std::function<sf::Series(const sf::GroupBy&)>;

/// The row-preserving cases of every grouper (golden "<grouper>.<case>").
const std::vector<std::pair<std::string, Op>> kEveryGrouper = {
    {"cumsum.x", [](const sf::GroupBy& g) { return g.cumsum("x"); }},
    {"cumsum.v", [](const sf::GroupBy& g) { return g["v"].cumsum(); }},
    {"cumcount", [](const sf::GroupBy& g) { return g.cumcount(); }},
    {"shift1.x", [](const sf::GroupBy& g) { return g["x"].shift(1); }},
    {"transform.mean.x", [](const sf::GroupBy& g) { return g.transform("x", "mean"); }},
    {"transform.median.x", [](const sf::GroupBy& g) { return g["x"].transform("median"); }},
};

/// The cases of one grouper only (golden "<case>").
std::vector<std::pair<std::string, Op>> one_grouper_cases() {
  std::vector<std::pair<std::string, Op>> c = {
      {"k.cumprod.v", [](const sf::GroupBy& g) { return g.cumprod("v"); }},
      {"k.cummin.x", [](const sf::GroupBy& g) { return g.cummin("x"); }},
      {"k.cummax.v", [](const sf::GroupBy& g) { return g.cummax("v"); }},
      {"k.cummax.b", [](const sf::GroupBy& g) { return g.cummax("b"); }},
      {"k.cumsum.b", [](const sf::GroupBy& g) { return g.cumsum("b"); }},
      {"k.cumcount.desc", [](const sf::GroupBy& g) { return g.cumcount(false); }},
      {"k.shiftm1.x", [](const sf::GroupBy& g) { return g.shift("x", -1); }},
      {"k.shift1.s", [](const sf::GroupBy& g) { return g.shift("s", 1); }},
      {"k.shift1.t", [](const sf::GroupBy& g) { return g.shift("t", 1); }},
      {"k.shift1.b", [](const sf::GroupBy& g) { return g.shift("b", 1); }},
      {"k.shift2.v", [](const sf::GroupBy& g) { return g.shift("v", 2); }},
      {"k.diff1.x", [](const sf::GroupBy& g) { return g.diff("x"); }},
      {"k.diffm2.v", [](const sf::GroupBy& g) { return g.diff("v", -2); }},
      {"k.ffill.x", [](const sf::GroupBy& g) { return g.ffill("x"); }},
      {"k.bfill.s", [](const sf::GroupBy& g) { return g.bfill("s"); }},
      {"k.ffill.t", [](const sf::GroupBy& g) { return g["t"].ffill(); }},
      {"k.transform.q0.9.x", [](const sf::GroupBy& g) { return g.transform("x", "q0.9"); }},
      {"k.transform.first.s", [](const sf::GroupBy& g) { return g.transform("s", "first"); }},
      {"k.transform.max.s", [](const sf::GroupBy& g) { return g.transform("s", "max"); }},
      {"k.transform.count.s", [](const sf::GroupBy& g) { return g.transform("s", "count"); }},
      {"k.transform.min.t", [](const sf::GroupBy& g) { return g.transform("t", "min"); }},
      {"k.transform.sum.b", [](const sf::GroupBy& g) { return g.transform("b", "sum"); }},
      {"k.rolling3.sum.v", [](const sf::GroupBy& g) { return g.rolling(3)["v"].sum(); }},
      {"ks.rolling3.mean.x", [](const sf::GroupBy& g) { return g.rolling(3)["x"].mean(); }},
      {"hot.rolling4mp2.std.x", [](const sf::GroupBy& g) { return g["x"].rolling(4, 2).std(); }},
  };
  for (const char* op :
       {"sum", "mean", "count", "size", "min", "max", "std", "var", "first", "last", "nunique", "median"})
    c.emplace_back(std::string("k.transform.") + op + ".x",
                   [op = std::string(op)](const sf::GroupBy& g) { return g.transform("x", op); });
  for (const char* op : {"sum", "mean", "min", "max", "std", "median", "first", "nunique"})
    c.emplace_back(std::string("k.transform.") + op + ".v",
                   [op = std::string(op)](const sf::GroupBy& g) { return g["v"].transform(op); });
  for (auto [w, mp, tag] : {std::tuple<int, int, const char*>{3, -1, "rolling3"}, {2, 1, "rolling2mp1"}}) {
    const std::pair<const char*, sf::RollingOp> ops[] = {
        {"mean", sf::RollingOp::mean}, {"sum", sf::RollingOp::sum}, {"min", sf::RollingOp::min},
        {"max", sf::RollingOp::max},   {"std", sf::RollingOp::std}, {"count", sf::RollingOp::count}};
    for (auto [name, op] : ops)
      c.emplace_back(std::string("k.") + tag + "." + name + ".x",
                     [w = w, mp = mp, op = op](const sf::GroupBy& g) { return g.rolling(w, mp)["x"].apply(op); });
    c.emplace_back(std::string("k.") + tag + ".var.x",
                   [w = w, mp = mp](const sf::GroupBy& g) { return g.rolling(w, mp)["x"].var(); });
  }
  return c;
}

/// The grouper a one-grouper case names ("k.cumprod.v" -> "k").
std::string grouper_of(const std::string& gcase) { return gcase.substr(0, gcase.find('.')); }

// A result must keep the input's partition layout (so assign pairs partitions without moving rows).
void expect_aligned(const sf::Frame& input, const sf::Series& s) {
  EXPECT_EQ(s.frame().local_partition_rows(), input.local_partition_rows());
}

}  // namespace

TEST(GroupbyPandas, EveryGrouperMatchesPandas) {
  Engine e;
  const sf::LocalTable all = read_input();
  for (const Layout& layout : layouts()) {
    SCOPED_TRACE(layout.name);
    const sf::Frame f = spread(e, all, layout);
    for (const char* g : {"k", "kna", "s", "sna", "ks", "hot", "u", "one"})
      for (const auto& [name, op] : kEveryGrouper) {
        const sf::Series s = op(grouper(f, g));
        expect_column(s.gather_all(), std::string(g) + "." + name);
      }
  }
}

TEST(GroupbyPandas, OperationsMatchPandas) {
  Engine e;
  const sf::LocalTable all = read_input();
  const sf::Frame f = spread(e, all, layouts()[0]);
  for (const auto& [name, op] : one_grouper_cases()) {
    const sf::Series s = op(grouper(f, grouper_of(name)));
    expect_column(s.gather_all(), name);
  }
}

TEST(GroupbyPandas, DtypesAndNames) {
  Engine e;
  const sf::Frame f = spread(e, read_input(), layouts()[0]);
  const sf::GroupBy g = f.groupby("k");
  const std::vector<std::tuple<sf::Series, ElementType, std::string>> want = {
      {g.cumsum("v"), ElementType::int64, "v_cumsum"},
      {g.cumsum("x"), ElementType::float64, "x_cumsum"},
      {g.cumsum("b"), ElementType::int64, "b_cumsum"},
      {g.cummax("t"), ElementType::timestamp, "t_cummax"},
      {g.cumcount(), ElementType::int64, "cumcount"},
      {g.shift("v"), ElementType::float64, "v_shift"},
      {g.shift("s"), ElementType::string, "s_shift"},
      {g.diff("v"), ElementType::float64, "v_diff"},
      {g.transform("v", "sum"), ElementType::int64, "v_sum"},
      {g.transform("v", "median"), ElementType::float64, "v_median"},
      {g.transform("x", "size"), ElementType::int64, "size"},
      {g.transform("x", "q0.25"), ElementType::float64, "x_q0.25"},
      {g.rolling(2)["v"].mean(), ElementType::float64, "v_mean"}};
  for (const auto& [s, type, name] : want) {
    EXPECT_EQ(s.dtype(), type) << name;
    EXPECT_EQ(s.name(), name);
    expect_aligned(f, s);
  }
}

TEST(GroupbyPandas, AssignAttachesWithoutMovingRows) {
  Engine e;
  const sf::Frame f = spread(e, read_input(), layouts()[2]);
  const sf::Frame out = f.assign("x_cum", f.groupby("k").cumsum("x")).assign("n", f.groupby("s").cumcount());
  EXPECT_EQ(out.local_partition_rows(), f.local_partition_rows());
  const sf::LocalTable t = out.gather_all();
  expect_column(t["x_cum"], "k.cumsum.x");
  expect_column(t["n"], "s.cumcount");
  EXPECT_EQ(t["x"].size(), 80u);
}

TEST(GroupbyPandas, AggMedianQuantileMatchPandas) {
  Engine e;
  const sf::LocalTable all = read_input();
  for (const Layout& layout : layouts()) {
    SCOPED_TRACE(layout.name);
    const sf::Frame f = spread(e, all, layout);
    const std::vector<std::pair<std::string, sf::Frame>> cases = {
        {"k", f.groupby("k").agg({{"x", {"median", "mean", "q0.9"}}, {"v", {"median", "sum", "quantile(0.25)"}}})},
        {"ks", f.groupby({"k", "s"})
                   .agg({sf::named_agg("x_median", "x", "median"), sf::named_agg("size", "x", "size"),
                         sf::named_agg("b_median", "b", "median")})},
        {"sna", f.groupby("s").dropna(false).agg({{"x", {"median", "q0", "q1"}}})},
        {"hot", f[{"hot", "x", "v"}].groupby("hot").median()},
        {"one", f[{"one", "x", "v"}].groupby("one").quantile(0.3)},
        {"u", f.groupby("u")["x"].agg({"median", "count"})}};
    for (const auto& [name, g] : cases) {
      const sf::LocalTable t = g.gather_all();
      std::vector<std::string> want_names;  // pandas' column order: the keys, then the aggregations as asked
      for (const auto& gcase : golden_file().order)
        if (gcase.rfind("agg." + name + ".", 0) == 0) want_names.push_back(gcase.substr(4 + name.size() + 1));
      EXPECT_EQ(t.names(), want_names) << name;
      for (const auto& c : t.columns)
        if (golden().count("agg." + name + "." + c.name)) expect_column(c, "agg." + name + "." + c.name);
    }
    // sort(false): the same groups, hash-routed, in an unspecified order.
    const sf::LocalTable t = f.groupby("k").sort(false).agg({{"x", {"median", "q0.9"}}}).gather_all();
    std::map<std::string, std::pair<std::string, std::string>> want;  // key -> (median, q0.9)
    for (std::size_t i = 0; i < golden().at("agg.k.k").size(); ++i)
      want[golden().at("agg.k.k")[i]] = {golden().at("agg.k.x_median")[i], golden().at("agg.k.x_q0.9")[i]};
    EXPECT_EQ(static_cast<std::size_t>(t.nrows()), want.size());
    for (std::size_t r = 0; r < static_cast<std::size_t>(t.nrows()); ++r) {
      std::string why;
      const auto it = want.find(std::to_string(t["k"].ints[r]));
      if (it == want.end()) {
        ADD_FAILURE() << "unexpected key " << t["k"].ints[r];
        continue;
      }
      EXPECT_TRUE(matches(t["x_median"], r, it->second.first, why)) << why;
      EXPECT_TRUE(matches(t["x_q0.9"], r, it->second.second, why)) << why;
    }
  }
}

// The mean of an int64 column is the values' mean, as pandas', even where their int64 sum wraps (the sum itself
// wraps, as pandas'/NumPy's). Expected: pandas 3.1.1,
//   M, m = np.iinfo(np.int64).max, np.iinfo(np.int64).min
//   pd.DataFrame({'k': [1,1,1,2,2,2,2,3,3,4,4,4] + [5]*10,
//                 'v': np.array([M,M,5,m,m+1,-7,3,m,M,1,2,4] + [M]*10)}).groupby('k')['v'].mean()
// and the exact mean of group 3 (m, M) -0.5, where pandas' float sum gives 0.0: within 1 of it. Rows dealt to the
// ranks in turn, on the host and on the reference place.
TEST(GroupbyPandas, Int64MeanIsTheValuesMeanWhereTheirSumWraps) {
  const std::int64_t M = std::numeric_limits<std::int64_t>::max(), m = std::numeric_limits<std::int64_t>::min();
  const std::vector<std::int64_t> k{1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
  const std::vector<std::int64_t> v{M, M, 5, m, m + 1, -7, 3, m, M, 1, 2, 4, M, M, M, M, M, M, M, M, M, M};
  const std::vector<double> want{6.148914691236517e+18, -4.611686018427388e+18, -0.5, 2.3333333333333335,
                                 9.223372036854776e+18};
  for (bool reference : {false, true}) {
    if (reference && !slab::built_with_kernel_reference) continue;
    slab::EngineOptions o = slab::testing::engine_options();
    o.reference_kernels = reference;
    slab::Engine e(o);
    const int p = e.comm().size(), r = e.comm().rank();
    std::vector<std::int64_t> mk, mv;
    for (std::size_t j = static_cast<std::size_t>(r); j < k.size(); j += static_cast<std::size_t>(p))
      mk.push_back(k[j]), mv.push_back(v[j]);
    sf::LocalTable t;
    t.add(sf::LocalColumn::int64("k", mk));
    t.add(sf::LocalColumn::int64("v", mv));
    const sf::Frame f = sf::Frame::from_local_table(e, t, 2);
    const sf::LocalTable g = sf::groupby(f, {"k"}, {{"v", {sf::AggOp::mean, sf::AggOp::sum}}}).gather_all();
    ASSERT_EQ(g.nrows(), want.size());
    const char* where = reference ? "reference place" : "host";
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (i == 2)
        EXPECT_NEAR(g["v_mean"].floats[i], want[i], 1.0) << where << ", group " << i + 1;
      else
        EXPECT_DOUBLE_EQ(g["v_mean"].floats[i], want[i]) << where << ", group " << i + 1;  // within 4 ulps
    }
    EXPECT_EQ(g["v_sum"].ints[0], static_cast<std::int64_t>(2 * static_cast<std::uint64_t>(M) + 5)) << where;
    EXPECT_EQ(g["v_sum"].ints[3], 7) << where;
  }
}

TEST(GroupbyPandas, ZeroRows) {
  Engine e;
  const sf::Frame f = sf::Frame::from_local_table(e, read_input().slice(0, 0), 5);
  const sf::GroupBy g = f.groupby({"k", "s"});
  for (const sf::Series& s : {g.cumsum("x"), g.cumcount(), g.shift("v", 1), g.transform("x", "median"),
                              g.rolling(3)["x"].mean(), g.ffill("s")}) {
    EXPECT_EQ(s.len(), 0) << s.name();
    expect_aligned(f, s);
  }
  const sf::Frame a = g.agg({{"x", {"median", "mean", "q0.75"}}, {"v", {"median"}}});
  EXPECT_EQ(a.len(), 0);
  EXPECT_EQ(a.columns(), (std::vector<std::string>{"k", "s", "x_median", "x_mean", "x_q0.75", "v_median"}));
}

TEST(GroupbyPandas, BadInputThrowsOnEveryRank) {
  Engine e;
  const sf::Frame f = spread(e, read_input(), layouts()[1]);
  const sf::GroupBy g = f.groupby("k");
  EXPECT_THROW((void)g.cumsum("nope"), slab::InvalidArgument);
  EXPECT_THROW((void)f.groupby("nope").cumcount(), slab::InvalidArgument);
  EXPECT_THROW((void)f.groupby(std::vector<std::string>{}).cumcount(), slab::InvalidArgument);
  EXPECT_THROW((void)g["nope"], slab::InvalidArgument);
  EXPECT_THROW((void)g.transform("x", "mode"), slab::InvalidArgument);
  EXPECT_THROW((void)g.transform("x", "q1.5"), slab::InvalidArgument);
  EXPECT_THROW((void)g.rolling(0), slab::InvalidArgument);
  EXPECT_THROW((void)g.rolling(3, 5), slab::InvalidArgument);
  EXPECT_THROW((void)g.rolling(3).mean(), slab::InvalidArgument);  // no column selected
  EXPECT_THROW((void)g.cumsum("s"), slab::TypeError);
  EXPECT_THROW((void)g.diff("t"), slab::TypeError);
  EXPECT_THROW((void)g.transform("s", "mean"), slab::TypeError);
  EXPECT_THROW((void)g.agg({{"x", {"median", "nope"}}}), slab::InvalidArgument);
  EXPECT_THROW((void)g.agg({{"x", {"q-0.1"}}}), slab::InvalidArgument);
  EXPECT_THROW((void)g.agg({{"nope", {"median"}}}), slab::InvalidArgument);
  EXPECT_THROW((void)g.agg({{"s", {"median"}}}), slab::TypeError);
  EXPECT_THROW((void)g.quantile(2.0), slab::InvalidArgument);
  EXPECT_THROW((void)sf::groupby(f, {"k"}, {{"x", {sf::AggOp::quantile}, {0.5, 0.7}}}), slab::InvalidArgument);
  // Every rank threw and none is left in a collective: the frame still works.
  expect_column(g.cumsum("x").gather_all(), "k.cumsum.x");
}
