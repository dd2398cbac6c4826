// Golden tests of the frame layer against pandas: the input and the expected results are CSV files written by
// generate_goldens.py (pandas 3.1.1, see README.md). The input is read with slab's read_csv (it expresses every
// null of the input: empty int64, string and float64 fields); the goldens are parsed by the small reader below,
// independent of slab's. Every result is gathered to every rank and compared there: integers and strings
// exactly, floats to 1e-12 relative, null positions exactly. Where slab's row order is unspecified (merge,
// drop_duplicates) both sides are sorted by their canonical row text first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/sort.hpp"
#include "slab/io/csv.hpp"
#include "test_engine.hpp"

namespace sf = slab::frame;
using slab::testing::Engine;

namespace {

constexpr double kRelTol = 1e-12;

std::string golden_path(const std::string& name) { return std::string(SLAB_GOLDEN_DIR) + "/" + name; }

// A golden CSV: header and rows of raw fields (no quoting: generate_goldens.py checks no value needs it).
struct Golden {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

Golden read_golden(const std::string& name) {
  Golden g;
  std::ifstream f(golden_path(name));
  if (!f) throw std::runtime_error("cannot open golden " + golden_path(name));
  std::string line;
  std::getline(f, line);
  g.header = split(line);
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    g.rows.push_back(split(line));
    g.rows.back().resize(g.header.size());  // trailing empty fields
  }
  return g;
}

std::string fmt_double(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Canonical text of a slab cell and of a golden field read as the slab column's type ("" = null).
std::string canon_cell(const sf::LocalColumn& c, std::size_t r) {
  if (c.is_null(r)) return "";
  switch (c.type) {
    case slab::ElementType::int64:
    case slab::ElementType::timestamp:
      return std::to_string(c.ints[r]);
    case slab::ElementType::float64:
      return fmt_double(c.floats[r]);
    case slab::ElementType::boolean:
      return c.bools[r] ? "True" : "False";
    case slab::ElementType::string:
      return c.strings[r];
  }
  return "?";
}
std::string canon_field(slab::ElementType type, const std::string& f) {
  if (f.empty()) return "";
  switch (type) {
    case slab::ElementType::int64:
    case slab::ElementType::timestamp:
      return std::to_string(std::stoll(f));
    case slab::ElementType::float64:
      return fmt_double(std::strtod(f.c_str(), nullptr));
    default:
      return f;
  }
}

// Whether slab's cell matches the golden field; `why` says how not.
bool cell_matches(const sf::LocalColumn& c, std::size_t r, const std::string& f, std::string& why) {
  const bool null = c.is_null(r);
  if (f.empty() || null) {
    if (f.empty() && null) return true;
    why = null ? "null, expected " + f : "expected null, got " + canon_cell(c, r);
    return false;
  }
  switch (c.type) {
    case slab::ElementType::int64:
    case slab::ElementType::timestamp:
    case slab::ElementType::boolean:
    case slab::ElementType::string:
      if (canon_cell(c, r) == canon_field(c.type, f)) return true;
      break;
    case slab::ElementType::float64: {
      const double want = std::strtod(f.c_str(), nullptr);
      const double got = c.floats[r];
      if (got == want || std::fabs(got - want) <= kRelTol * std::max(std::fabs(got), std::fabs(want))) return true;
      break;
    }
  }
  why = "got " + canon_cell(c, r) + ", expected " + f;
  return false;
}

std::vector<std::size_t> sorted_order(std::vector<std::vector<std::string>> keys) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}

// Compare `got` (gathered) with golden file `name`: same columns in order, same rows (in order unless `sort`).
void expect_table(const sf::LocalTable& got, const Golden& want, bool sort) {
  EXPECT_EQ(got.names(), want.header);
  EXPECT_EQ(static_cast<std::size_t>(got.nrows()), want.rows.size());
  if (got.names() != want.header || static_cast<std::size_t>(got.nrows()) != want.rows.size()) return;
  const std::size_t n = want.rows.size();
  std::vector<std::size_t> go(n), wo(n);
  std::iota(go.begin(), go.end(), 0);
  std::iota(wo.begin(), wo.end(), 0);
  if (sort) {
    std::vector<std::vector<std::string>> gk(n), wk(n);
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t c = 0; c < got.ncols(); ++c) {
        gk[r].push_back(canon_cell(got.columns[c], r));
        wk[r].push_back(canon_field(got.columns[c].type, want.rows[r][c]));
      }
    go = sorted_order(std::move(gk));
    wo = sorted_order(std::move(wk));
  }
  int failures = 0;
  for (std::size_t i = 0; i < n && failures < 10; ++i)
    for (std::size_t c = 0; c < got.ncols(); ++c) {
      std::string why;
      if (!cell_matches(got.columns[c], go[i], want.rows[wo[i]][c], why)) {
        ADD_FAILURE() << "row " << i << " column " << want.header[c] << ": " << why;
        ++failures;
      }
    }
}
void expect_golden(const sf::LocalTable& got, const std::string& name, bool sort = false) {
  SCOPED_TRACE(name);
  expect_table(got, read_golden(name), sort);
}

sf::Frame read_input(Engine& e, const std::string& name = "input.csv") {
  slab::io::CsvOptions opt;
  opt.rows_per_partition = 16;  // several partitions per rank
  return slab::io::read_csv(e, golden_path(name), opt);
}

}  // namespace

TEST(FrameGolden, InputTypes) {
  Engine e;
  const sf::Frame f = read_input(e);
  using P = std::pair<std::string, slab::ElementType>;
  EXPECT_EQ(sf::dtypes(f), (std::vector<P>{{"k1", slab::ElementType::int64},
                                           {"s", slab::ElementType::string},
                                           {"x", slab::ElementType::float64},
                                           {"y", slab::ElementType::float64},
                                           {"v", slab::ElementType::int64},
                                           {"t", slab::ElementType::timestamp}}));
  EXPECT_EQ(f.len(), 200);
}

TEST(FrameGolden, GroupbyTwoKeys) {
  Engine e;
  using A = sf::AggOp;
  const sf::Frame g =
      sf::groupby(read_input(e), {"k1", "s"},
                  {{"x", {A::sum, A::mean, A::count, A::min, A::max, A::std, A::var, A::first, A::last, A::nunique}},
                   {"v", {A::sum, A::min, A::max, A::first}},
                   {"y", {A::size}}});
  expect_golden(g.gather_all(), "groupby_k1_s.csv");
}

TEST(FrameGolden, GroupbyKeepNullKey) {
  Engine e;
  using A = sf::AggOp;
  sf::GroupbyOptions opt;
  opt.dropna = false;
  const sf::Frame g = sf::groupby(
      read_input(e), {"s"},
      {{"y", {A::sum, A::mean}}, {"x", {A::count}}, {"k1", {A::nunique}}, {"t", {A::min, A::max}}, {"v", {A::size}}},
      opt);
  expect_golden(g.gather_all(), "groupby_s_keepna.csv");
}

TEST(FrameGolden, Merge) {
  Engine e;
  const sf::Frame left = read_input(e, "merge_in_left.csv");
  const sf::Frame right = read_input(e, "merge_in_right.csv");
  const std::pair<sf::JoinKind, const char*> hows[] = {{sf::JoinKind::inner, "inner"},
                                                       {sf::JoinKind::left, "left"},
                                                       {sf::JoinKind::right, "right"},
                                                       {sf::JoinKind::outer, "outer"}};
  for (const auto& [how, name] : hows)
    for (auto strategy : {sf::JoinStrategy::automatic, sf::JoinStrategy::hash}) {
      if (how == sf::JoinKind::outer && strategy != sf::JoinStrategy::automatic) continue;  // always hash
      SCOPED_TRACE(strategy == sf::JoinStrategy::hash ? "hash" : "automatic");
      sf::MergeOptions opt;
      opt.how = how;
      opt.strategy = strategy;
      expect_golden(sf::merge(left, right, {"k"}, opt).gather_all(), std::string("merge_") + name + ".csv", true);
    }
}

TEST(FrameGolden, SortValues) {
  Engine e;
  const sf::Frame f = read_input(e);
  const std::vector<sf::SortKey> keys{{"s", true}, {"x", false}};
  expect_golden(sf::sort_values(f, keys, sf::NullsPosition::last).gather_all(), "sort_s_asc_x_desc_nalast.csv");
  expect_golden(sf::sort_values(f, keys, sf::NullsPosition::first).gather_all(), "sort_s_asc_x_desc_nafirst.csv");
}

TEST(FrameGolden, Rolling) {
  Engine e;
  const sf::Frame f = read_input(e);
  using R = sf::RollingOp;
  const std::vector<R> all{R::mean, R::sum, R::std, R::min, R::max, R::count};
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::count(5), all).gather_all(), "rolling_5.csv");
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::count(7, 3), {R::mean, R::std, R::count}).gather_all(),
                "rolling_7_minp3.csv");
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::parse("10min"), all, "t").gather_all(), "rolling_10min_t.csv");
}

// +-inf mixed with NaN: pandas skips infinities in every aggregation but count. Before the fix a running sum
// went inf - inf = NaN and stayed NaN after the infinity left the window (and differently at each rank count,
// as the recompute points move with the partitions).
TEST(FrameGolden, RollingWithInfinities) {
  Engine e;
  const sf::Frame f = read_input(e, "inf_input.csv");
  EXPECT_EQ(f.len(), 160);
  using R = sf::RollingOp;
  const std::vector<R> all{R::mean, R::sum, R::std, R::min, R::max, R::count};
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::count(5), all).gather_all(), "rolling_inf_5.csv");
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::count(7, 3), all).gather_all(), "rolling_inf_7_minp3.csv");
  expect_golden(sf::rolling(f, "x", sf::RollingWindow::parse("1h"), all, "t").gather_all(), "rolling_inf_1h_t.csv");
  sf::RollingWindow w = sf::RollingWindow::parse("1h");
  w.min_periods = 3;
  expect_golden(sf::rolling(f, "x", w, all, "t").gather_all(), "rolling_inf_1h_minp3_t.csv");
}

TEST(FrameGolden, ValueCountsAndDropDuplicates) {
  Engine e;
  const sf::Frame f = read_input(e);
  expect_golden(sf::value_counts(f, "s"), "value_counts_s.csv");
  expect_golden(sf::value_counts(f, "k1"), "value_counts_k1.csv");
  expect_golden(sf::drop_duplicates(f, {"k1", "s"}).gather_all(), "drop_duplicates_k1_s.csv", true);
}

TEST(FrameGolden, CumsumShiftDiff) {
  Engine e;
  const sf::Frame f = read_input(e);
  expect_golden(sf::cumsum(f, {"k1", "x", "v"}).gather_all(), "cumsum.csv");
  expect_golden(sf::shift(f, 3).gather_all(), "shift_3.csv");
  expect_golden(sf::shift(f, -2).gather_all(), "shift_m2.csv");
  expect_golden(sf::diff(f, 1).gather_all(), "diff_1.csv");
}

TEST(FrameGolden, FillnaDropna) {
  Engine e;
  const sf::Frame f = read_input(e);
  expect_golden(sf::fillna(f, 0.0, {"x"}).gather_all(), "fillna_x.csv");
  expect_golden(sf::fillna(f, std::string("zz"), {"s"}).gather_all(), "fillna_s.csv");
  expect_golden(sf::fillna(f, std::int64_t{-1}, {"k1"}).gather_all(), "fillna_k1.csv");
  expect_golden(sf::dropna(f, {"x", "s"}).gather_all(), "dropna_x_s.csv");
  expect_golden(sf::dropna(f).gather_all(), "dropna_all.csv");
}

TEST(FrameGolden, Describe) {
  Engine e;
  const sf::LocalTable d = sf::describe(read_input(e));
  // The golden's first column holds the row labels (count, mean, ...).
  const Golden want = read_golden("describe.csv");
  std::vector<std::string> labels;
  for (const auto& row : want.rows) labels.push_back(row.front());
  EXPECT_EQ(d.labels, labels);
  sf::LocalTable values = d;
  values.labels.clear();
  Golden body;  // the golden without its label column
  body.header.assign(want.header.begin() + 1, want.header.end());
  for (const auto& row : want.rows) body.rows.emplace_back(row.begin() + 1, row.end());
  SCOPED_TRACE("describe.csv");
  expect_table(values, body, false);
}
