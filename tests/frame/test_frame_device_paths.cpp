// The frame operations' device paths (src/frame/ops.cpp on frame/kernels/ops.hpp and gather.hpp: cumsum, shift,
// diff, dropna; select moves columns with the memory-kind-aware copy; rolling.cpp on frame/kernels/rolling.hpp; the
// group transforms on frame/kernels/transform.hpp; and the rest listed in docs/ARCHITECTURE.md), run on
// the reference place: the same wiring a GPU rank takes (per-partition totals and scans, halos copied next to a
// partition's rows, one kernel per column), with the device kernels' CPU instantiations on host memory. Every value and
// every null must be bitwise the host kernels' (the reference scans in row order, as the host does), and these
// operations must record no host fallback there.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../common/sanitizer.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/frame/datasets.hpp"
#include "slab/frame/expr.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/from_arrays.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/groupby_transform.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/quantile.hpp"
#include "slab/frame/resample.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/frame/sort.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"
#include "world.hpp"

namespace {

using slab::frame::Frame;
using slab::frame::LocalColumn;
using slab::frame::LocalTable;

slab::EngineOptions options_for(bool reference) {
  slab::EngineOptions o = slab::testing::engine_options();
  o.reference_kernels = reference;
  return o;
}

/// This rank's share of n rows (rank r: [r n / p, (r + 1) n / p), so some ranks have none for small n): every
/// column type, with masks, NaN, -0.0, int64 extremes (cumsum wraps), and float values that are not exactly
/// summable (x: bitwise but for the float sums and products that group transforms compute in pieces of a group,
/// and rolling sums and means, which agree within rounding).
LocalTable table_for(std::int64_t n, int rank, int nranks) {
  const std::int64_t b = n * rank / nranks, e = n * (rank + 1) / nranks;
  std::vector<std::int64_t> i64, ts, k;
  std::vector<double> x, y;
  std::vector<std::uint8_t> bools, i_valid, y_valid, b_valid, s_valid;
  std::vector<std::string> s;
  for (std::int64_t r = b; r < e; ++r) {
    const auto u = static_cast<std::uint64_t>(r);
    std::int64_t v = static_cast<std::int64_t>(slab::counter_hash(7, u) % 2001) - 1000;
    if (r == 1) v = std::numeric_limits<std::int64_t>::max();
    if (r == 2) v = std::numeric_limits<std::int64_t>::min();
    i64.push_back(v);
    i_valid.push_back(r % 7 != 3);
    double xv = 2.0 * slab::counter_uniform(8, u) - 1.0;
    if (r % 11 == 5) xv = std::numeric_limits<double>::quiet_NaN();
    if (r % 13 == 6) xv = -0.0;
    if (r % 19 == 7) xv = r % 2 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    x.push_back(xv);
    y.push_back(static_cast<double>(r % 17) * 0.125 - 1.0);
    y_valid.push_back(r % 5 != 1);
    bools.push_back(static_cast<std::uint8_t>(slab::counter_hash(9, u) & 1));
    b_valid.push_back(r % 9 != 4);
    s.push_back(std::string(1, static_cast<char>('a' + slab::counter_hash(10, u) % 5)));
    s_valid.push_back(r % 6 != 2);
    ts.push_back(946684800000000000 + r * 60000000000);
    k.push_back(static_cast<std::int64_t>(slab::counter_hash(12, u) % 131));
  }
  LocalTable t;
  t.add(LocalColumn::int64("i", i64, i_valid));
  t.add(LocalColumn::float64("x", x));
  t.add(LocalColumn::float64("y", y, y_valid));
  t.add(LocalColumn::boolean("b", bools, b_valid));
  t.add(LocalColumn::string("s", s, s_valid));
  t.add(LocalColumn::timestamp("t", ts));
  t.add(LocalColumn::int64("k", k));  // dense, 0 to 130: the merges' direct array
  return t;
}

/// The right side of the merges: rows [r m / p, (r + 1) m / p) of m, a dense key k (the direct array's case),
/// i as the left's (nulls, extremes), strings from another alphabet ('b' to 'f': the codes are remapped into
/// the union of both dictionaries) and payloads with masks.
LocalTable right_for(std::int64_t m, int rank, int nranks) {
  const std::int64_t b = m * rank / nranks, e = m * (rank + 1) / nranks;
  std::vector<std::int64_t> k, i64;
  std::vector<double> w;
  std::vector<std::uint8_t> i_valid, w_valid, flag, s_valid;
  std::vector<std::string> s;
  for (std::int64_t r = b; r < e; ++r) {
    const auto u = static_cast<std::uint64_t>(r);
    k.push_back(r % 97);
    std::int64_t v = static_cast<std::int64_t>(slab::counter_hash(7, u + 5) % 2001) - 1000;
    if (r == 3) v = std::numeric_limits<std::int64_t>::min();
    i64.push_back(v);
    i_valid.push_back(r % 5 != 2);
    s.push_back(std::string(1, static_cast<char>('b' + slab::counter_hash(11, u) % 5)));
    s_valid.push_back(r % 7 != 1);
    w.push_back(static_cast<double>(r % 13) * 0.5);
    w_valid.push_back(r % 4 != 3);
    flag.push_back(static_cast<std::uint8_t>(r & 1));
  }
  LocalTable t;
  t.add(LocalColumn::int64("k", k));
  t.add(LocalColumn::int64("i", i64, i_valid));
  t.add(LocalColumn::string("s", s, s_valid));
  t.add(LocalColumn::float64("y", w, w_valid));  // clashes with the left's y: suffixes
  t.add(LocalColumn::boolean("flag", flag));
  return t;
}

/// One result: its name and every value and null of every column, as bit patterns (NaN == NaN, -0.0 != 0.0).
/// `rounding`: its float values may differ from the host's within rounding (matches()).
struct Result {
  std::string what;
  std::vector<std::string> names;
  std::vector<std::vector<std::uint64_t>> columns;  ///< per column: size, then (valid, value) per row
  std::vector<bool> floats;                         ///< per column: float64
  bool rounding = false;
  bool operator==(const Result&) const = default;
};
void add(std::vector<Result>& out, const std::string& what, const LocalTable& t, bool rounding = false) {
  Result r{what, {}, {}, {}, rounding};
  for (const LocalColumn& c : t.columns) {
    r.names.push_back(c.name);
    r.floats.push_back(!c.floats.empty());
    std::vector<std::uint64_t>& bits = r.columns.emplace_back();
    bits.push_back(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
      bits.push_back(i < c.valid.size() ? c.valid[i] : 2);
      // Every NaN is one NaN: the sign of a NaN from NaN + NaN follows the operand order the compiler picks.
      if (!c.floats.empty())
        bits.push_back(std::isnan(c.floats[i]) ? 0x7FF8000000000000ull : std::bit_cast<std::uint64_t>(c.floats[i]));
      if (!c.ints.empty()) bits.push_back(static_cast<std::uint64_t>(c.ints[i]));
      if (!c.bools.empty()) bits.push_back(c.bools[i]);
      if (!c.strings.empty()) bits.push_back(std::hash<std::string>{}(c.strings[i]));
    }
  }
  out.push_back(std::move(r));
}
/// Bitwise equal, or for a result with `rounding` every float value within 1e-9 (relative, or absolute below 1)
/// of the host's, with the same nulls, NaN and infinities; every other column bitwise.
bool matches(const Result& got, const Result& want) {
  if (got == want) return true;
  if (!want.rounding || got.names != want.names || got.columns.size() != want.columns.size()) return false;
  for (std::size_t c = 0; c < got.columns.size(); ++c) {
    const auto &g = got.columns[c], &w = want.columns[c];
    if (g.size() != w.size()) return false;
    for (std::size_t k = 0; k < g.size(); ++k) {
      if (g[k] == w[k]) continue;
      if (!want.floats[c] || k == 0 || (k - 1) % 2 == 0) return false;  // not a float value: bitwise
      const double a = std::bit_cast<double>(g[k]), b = std::bit_cast<double>(w[k]);
      if (!std::isfinite(a) || !std::isfinite(b) || std::fabs(a - b) > 1e-9 * (1.0 + std::fabs(b))) return false;
    }
  }
  return true;
}
/// Where two results first differ (for the failure message).
std::string first_difference(const Result& got, const Result& want) {
  for (std::size_t c = 0; c < std::min(got.columns.size(), want.columns.size()); ++c) {
    const auto &g = got.columns[c], &w = want.columns[c];
    for (std::size_t k = 0; k < std::min(g.size(), w.size()); ++k)
      if (g[k] != w[k]) {
        if (k == 0)
          return "column " + got.names[c] + ": " + std::to_string(g[0]) + " rows, host " + std::to_string(w[0]);
        const std::size_t stride = (g.size() - 1) / std::max<std::uint64_t>(1, g[0]);
        return "column " + got.names[c] + ", local row " + std::to_string((k - 1) / std::max<std::size_t>(1, stride)) +
               ": bits " + std::to_string(g[k]) + ", host " + std::to_string(w[k]);
      }
  }
  return "the number of columns";
}

using R = slab::frame::ColumnRecipe;
using slab::ElementType;

/// A schema with every column type generate's recipes can make.
slab::frame::Schema recipe_schema() {
  return slab::frame::Schema({{"r", ElementType::int64},
                              {"t", ElementType::timestamp},
                              {"k", ElementType::int64},
                              {"s", ElementType::string},
                              {"b", ElementType::boolean},
                              {"m", ElementType::int64},
                              {"u", ElementType::float64}},
                             {nullptr, nullptr, nullptr, slab::frame::names_dictionary(), nullptr, nullptr, nullptr});
}
std::vector<R> recipes() {
  return {R::affine(-5, 3),           R::affine(946684800000000000, 60000000000),
          R::hash_mod(3, 1000, -500), R::hash_mod(4, 26),
          R::multiply_mod(7, 2),      R::multiply_mod(1000003, 4099),
          R::uniform(5, -1.0, 1.0)};
}
/// The same columns as recipes() by a fill loop written out here (the independent reference).
Frame filled(slab::Engine& e, std::int64_t n) {
  return slab::frame::generate(
      e, recipe_schema(), n, 1000, "filled", [](std::int64_t first, slab::frame::BatchBuilder& b) {
        for (std::int64_t i = 0; i < b.nrows(); ++i) {
          const auto r = static_cast<std::uint64_t>(first + i);
          const auto k = static_cast<std::size_t>(i);
          b.column<std::int64_t>(0)[k] = -5 + 3 * static_cast<std::int64_t>(r);
          b.column<std::int64_t>(1)[k] = 946684800000000000 + 60000000000 * static_cast<std::int64_t>(r);
          b.column<std::int64_t>(2)[k] = static_cast<std::int64_t>(slab::counter_hash(3, r) % 1000) - 500;
          b.column<std::int32_t>(3)[k] = static_cast<std::int32_t>(slab::counter_hash(4, r) % 26);
          b.column<std::uint8_t>(4)[k] = static_cast<std::uint8_t>(r * 7 % 2);
          b.column<std::int64_t>(5)[k] = static_cast<std::int64_t>(r * 1000003 % 4099);
          b.column<double>(6)[k] = 2.0 * slab::counter_uniform(5, r) - 1.0;
        }
      });
}

/// The results of one engine for n rows: this rank's rows of each (the same partitions on both engines).
std::vector<Result> compute(slab::Engine& e, std::int64_t n) {
  const Frame f = Frame::from_local_table(e, table_for(n, e.comm().rank(), e.comm().size()), 1000);
  std::vector<Result> out;
  add(out, "cumsum", slab::frame::cumsum(f).local_table());
  // Halos past the whole frame, past a rank's rows, past a partition (1000 rows), within one.
  add(out, "shift -5000", slab::frame::shift(f, -5000).local_table());
  add(out, "diff 2500", slab::frame::diff(f, 2500).local_table());
  add(out, "dropna", slab::frame::dropna(f).local_table());
  // assign of a Series: its column moved in beside the frame's, by position (the same partitions, or repartitioned).
  add(out, "assign series", f.assign("s2", f["s"]).local_table());
  add(out, "assign sorted series", f.assign("y", f.sort_values("i")["y"]).local_table());
  // head and tail copy only their rows out of the partitions holding them (every column, masks, strings).
  add(out, "head 1500", slab::frame::head(f, 1500));
  add(out, "head -7", slab::frame::head(f, -7));
  add(out, "tail 2500", slab::frame::tail(f, 2500));
  add(out, "generate", slab::frame::generate(e, recipe_schema(), n, 1000, "recipes", recipes()).local_table());
  // Rolling windows: y is exactly summable (eighths, masked rows as NaN), so every aggregation must agree
  // bitwise, the std of a time window aside (the host never recomputes it: within rounding, checked below).
  using slab::frame::RollingOp;
  using slab::frame::RollingWindow;
  const std::vector<RollingOp> all{RollingOp::mean, RollingOp::sum, RollingOp::min,
                                   RollingOp::max,  RollingOp::std, RollingOp::count};
  const std::vector<RollingOp> no_std{RollingOp::mean, RollingOp::sum, RollingOp::min, RollingOp::max,
                                      RollingOp::count};
  const std::vector<RollingOp> order_free{RollingOp::min, RollingOp::max, RollingOp::count};
  auto roll = [&](const std::string& col, const RollingWindow& w, const std::vector<RollingOp>& ops) {
    add(out, "rolling " + col + " " + w.str(), slab::frame::rolling(f, col, w, ops, "t").local_table());
  };
  // groupby: gathered (the ranks' shares of the result follow sampled splitters, which differ), every
  // aggregation but std/var (within rounding, below) bitwise: y and b are exactly summable, int64 sums wrap.
  using slab::frame::AggOp;
  using slab::frame::Aggregation;
  auto group = [&](const std::vector<std::string>& keys, const std::vector<Aggregation>& aggs, bool dropna = true,
                   bool rounding = false) {
    std::string what = "groupby";
    for (const auto& k : keys) what += " " + k;
    add(out, what + (dropna ? "" : " (dropna=False)"),
        slab::frame::groupby(f, keys, aggs, {.sort = true, .dropna = dropna}).gather_all(), rounding);
  };
  const std::vector<Aggregation> every{
      {"y", {AggOp::sum, AggOp::mean, AggOp::count, AggOp::min, AggOp::max, AggOp::first, AggOp::last, AggOp::size}},
      {"i", {AggOp::sum, AggOp::mean, AggOp::count, AggOp::min, AggOp::max, AggOp::first, AggOp::last}},
      {"b", {AggOp::sum, AggOp::mean, AggOp::min, AggOp::max, AggOp::first}},
      {"x", {AggOp::min, AggOp::max, AggOp::count, AggOp::first, AggOp::last}},
      {"t", {AggOp::min, AggOp::max, AggOp::first, AggOp::last, AggOp::count}}};
  // i's mean within rounding: the group holding both int64 extremes spans more than 2^64 / n, so its mean is
  // Welford's (agg_hd.hpp's int64_mean), which the host's pass and the device's pieces round differently.
  group({"s"}, every, true, true);
  // nunique: distinct pairs per partition, counted after the exchange (NaN and nulls dropped, -0.0 == 0.0,
  // duplicates across ranks once), with other aggregations beside it and with nulls kept as keys.
  const std::vector<Aggregation> distinct{{"x", {AggOp::nunique}},
                                          {"i", {AggOp::nunique, AggOp::sum}},
                                          {"b", {AggOp::nunique}},
                                          {"t", {AggOp::nunique, AggOp::max}},
                                          {"k", {AggOp::nunique}}};
  group({"s"}, distinct);
  group({"b"}, {{"x", {AggOp::nunique}}, {"s", {AggOp::nunique}}, {"t", {AggOp::nunique, AggOp::first}}}, false);
  group({"k"}, {{"y", {AggOp::nunique, AggOp::count}}, {"s", {AggOp::nunique}}});
  add(out, "assign mixed",
      slab::frame::assign(f, "v", slab::frame::col("x") * slab::frame::col("i") - slab::frame::col("y")).local_table());
  add(out, "filter", slab::frame::filter(f, slab::frame::col("y") > 0 | slab::frame::col("s") == "b").local_table());
  // merge: the same partitions on both engines, so each rank's rows compare as they are.
  using slab::frame::JoinKind;
  using slab::frame::JoinStrategy;
  auto join = [&](const Frame& right, const std::vector<std::string>& on, JoinKind how, JoinStrategy strategy) {
    std::string what = "merge on";
    for (const auto& k : on) what += " " + k;
    add(out,
        what + " how " + std::to_string(static_cast<int>(how)) + " strategy " +
            std::to_string(static_cast<int>(strategy)),
        slab::frame::merge(f, right, on, {.how = how, .strategy = strategy}).local_table());
  };
  const Frame small = Frame::from_local_table(e, right_for(97, e.comm().rank(), e.comm().size()), 40);
  join(small, {"k"}, JoinKind::inner, JoinStrategy::broadcast);  // every left row once, by the direct array
  roll("y", RollingWindow::count(1500), all);                    // past a partition (1000 rows)
  roll("y", RollingWindow::parse("1d"), no_std);                 // 1440 rows of one minute
  // Group transforms: bitwise, but for the float sums and products of groups past one piece of kGroupPiece (512)
  // rows on data that is not exactly summable (x: NaN, +-inf, values in [-1, 1); i: the int64 extremes), std and
  // var of groups past one piece, and rolling sums and means of x (the host's dense sum or its running sum, the
  // device's runs): those within rounding (frame/kernels/transform.hpp's contract).
  using slab::frame::GroupScan;
  using slab::frame::GroupTransform;
  auto within_rounding = [](const GroupTransform& w) {
    const bool inexact = w.column == "x" || w.column == "i";
    switch (w.op) {
      case GroupScan::cumsum:
      case GroupScan::cumprod:
        return inexact;
      case GroupScan::transform:
        return w.agg == AggOp::std || w.agg == AggOp::var || ((w.agg == AggOp::sum || w.agg == AggOp::mean) && inexact);
      case GroupScan::rolling:
        return (w.rolling_op == slab::frame::RollingOp::sum || w.rolling_op == slab::frame::RollingOp::mean) &&
               w.column == "x";
      default:
        return false;
    }
  };
  auto transform = [&](const std::vector<std::string>& keys, const GroupTransform& what, bool dropna = true) {
    std::string name = std::string("group ") + slab::frame::to_string(what.op) + " " + what.column;
    for (const auto& k : keys) name += " by " + k;
    if (what.op == GroupScan::transform) name += std::string(" ") + slab::frame::to_string(what.agg);
    if (what.op == GroupScan::shift || what.op == GroupScan::diff) name += " " + std::to_string(what.periods);
    if (what.op == GroupScan::rolling)
      name += " " + what.window.str() + " " + (what.rolling_var ? "var" : std::string(to_string(what.rolling_op)));
    add(out, name + (dropna ? "" : " (dropna=False)"),
        slab::frame::group_transform(f, keys, what, {.dropna = dropna}).frame().local_table(), within_rounding(what));
  };
  transform({"s"}, {.op = GroupScan::cumsum, .column = "x"});
  transform({"k"}, {.op = GroupScan::cumcount, .ascending = false});
  if (n > 5000) return out;  // 2^20 + 1: the cases above; the rest on the small sizes
  // median and quantile (the small sizes: the values travel whole): each group's values sorted in the IEEE total order
  // (-0.0 before 0.0) on both sides.
  const std::vector<Aggregation> holistic{
      {"x", {AggOp::median, AggOp::quantile, AggOp::quantile, AggOp::min}, {0.0, 0.9}},
      {"i", {AggOp::quantile, AggOp::median, AggOp::sum}, {0.25}},
      {"b", {AggOp::median}},
      {"y", {AggOp::quantile, AggOp::nunique}, {1.0}}};
  group({"s"}, holistic);
  group({"k"}, holistic);
  group({"b", "s"}, {{"x", {AggOp::median}}}, false);
  for (std::int64_t w : {1, 3, 100, 5000}) roll("y", RollingWindow::count(w), all);
  roll("y", RollingWindow::count(7, 2), all);
  roll("y", RollingWindow::count(7, 0), all);
  roll("x", RollingWindow::count(5), order_free);  // NaN, +-inf, -0.0: min, max and count are bitwise always
  roll("x", RollingWindow::count(2000, 1), order_free);
  roll("b", RollingWindow::count(4), no_std);
  roll("i", RollingWindow::count(6), order_free);  // int64 extremes as doubles
  for (const char* span : {"1min", "7min", "100h"}) roll("y", RollingWindow::parse(span), no_std);
  roll("x", RollingWindow::parse("45min"), order_free);
  roll("y", RollingWindow::time(3 * 60000000000LL, 3), no_std);
  // i's mean within rounding: the group holding both int64 extremes spans more than 2^64 / n, so its mean is
  // Welford's (agg_hd.hpp's int64_mean), which the host's pass and the device's pieces round differently.
  group({"s"}, every, true, true);
  group({"b", "s"}, {{"y", {AggOp::sum, AggOp::mean, AggOp::count}}, {"x", {AggOp::first, AggOp::last}}});
  // filter and assign: every expression node, on every column type, with masks, NaN, -0.0, +-inf, int64
  // extremes (wrapping arithmetic), division by zero and string dictionaries.
  using slab::frame::col;
  using slab::frame::Expr;
  const std::vector<std::pair<std::string, Expr>> values{
      {"arith", col("i") * 3 + col("k") - 7},
      {"true division", col("i") / col("k")},
      {"floordiv mod", slab::frame::floordiv(col("i"), col("k") - 5) + col("i") % -3},
      {"float floordiv mod", slab::frame::floordiv(col("x"), col("y")) - col("x") % 0.25},
      {"by zero", col("i").floordiv(0) + col("i").mod(0)},
      {"mixed", col("x") * col("i") + col("b") - col("y") / 0.0},
      {"neg abs", -col("i") + col("x").abs() - (-col("x"))},
      {"math", slab::frame::log(col("x")) + slab::frame::exp(col("y")) + slab::frame::sqrt(col("k"))},
      {"round", slab::frame::round(col("x") * 1000, 1) + slab::frame::round(col("y"), 0)},
      {"round int", slab::frame::round(col("i"), -2) + slab::frame::round(col("k"), -1)},
      {"clip", slab::frame::clip(col("x"), col("y"), 0.5)},
      {"clip int", slab::frame::clip(col("i"), -100, col("k"))},
      {"where float", slab::frame::where(col("b"), col("x"), col("y"))},
      {"where int", slab::frame::where(col("x") > 0, col("i"), col("k"))},
      {"where bool", slab::frame::where(col("y") > 0, col("b"), false)},
      {"compare", col("i") > col("k")},
      {"compare strings", col("s") >= "c"},
      {"compare literal first", Expr("b") < col("s")},
      {"timestamps", col("t") >= "2000-01-01 00:20:00"},
      {"logic", (col("x") > 0 & col("s") != "a") | ~col("b")},
      {"nulls", col("y").isnull() | col("s").notnull()},
      {"isin", col("k").isin({std::int64_t{3}, 7.0, true, std::numeric_limits<double>::quiet_NaN()})},
      {"isin strings", col("s").isin({std::string("b"), std::string("e"), std::string("z")})},
      {"str", col("s").contains("[bd]", true) & (col("s").len() == 1)},
      {"str lower", col("s").lower()},
      {"column", col("y")},
      {"bool column", col("b")},
      {"nan literal", col("x") + slab::frame::lit(slab::frame::Scalar{})},
  };
  for (const auto& [what, value] : values) add(out, "assign " + what, slab::frame::assign(f, "v", value).local_table());
  add(out, "assign over x", slab::frame::assign(f, "x", col("x") + 1).local_table());
  // fillna: every fitting column, or the ones named; strings get the value in a new dictionary.
  for (const char* column : {"i", "x", "y", "b", "t"})
    for (ElementType to : {ElementType::int64, ElementType::float64, ElementType::boolean, ElementType::timestamp})
      add(out, std::string("astype ") + column + " " + std::string(slab::to_string(to)),
          slab::frame::astype(f, column, to).local_table());
  add(out, "fillna 2.5", slab::frame::fillna(f, 2.5).local_table());
  add(out, "fillna int", slab::frame::fillna(f, slab::frame::Scalar{std::int64_t{-7}}, {"i", "y", "t"}).local_table());
  add(out, "fillna bool", slab::frame::fillna(f, true).local_table());
  add(out, "fillna string", slab::frame::fillna(f, std::string("bb")).local_table());
  add(out, "fillna string known", slab::frame::fillna(f, std::string("c"), {"s"}).local_table());
  for (const Expr& pred : {col("x") > 0, col("b"), col("s") == "c" | col("y").isnull(),
                           slab::frame::where(col("i") > 0, col("b"), col("y") < 0), col("k").isin({5, 6})})
    add(out, "filter " + pred.to_string(), slab::frame::filter(f, pred).local_table());
  // sort_values: the same samples and splitters, so each rank's rows come out alike; ties keep row order.
  using slab::frame::NullsPosition;
  add(out, "sort s", slab::frame::sort_values(f, {"s"}, true).local_table());
  add(out, "sort x desc nulls first", slab::frame::sort_values(f, {"x"}, false, NullsPosition::first).local_table());
  add(out, "sort b i y", slab::frame::sort_values(f, {{"b", true}, {"i", false}, {"y", true}}).local_table());
  add(out, "sort t k", slab::frame::sort_values(f, {"k", "t"}, true, NullsPosition::last, 700).local_table());
  // drop_duplicates: nulls, NaN and -0.0 as keys_equal compares them; first rows in row order.
  add(out, "drop_duplicates s b", slab::frame::drop_duplicates(f, {"s", "b"}).local_table());
  add(out, "drop_duplicates x", slab::frame::drop_duplicates(f, {"x"}).local_table());
  add(out, "drop_duplicates k i y", slab::frame::drop_duplicates(f, {"k", "i", "y"}).local_table());
  add(out, "unique s", slab::frame::unique(f, "s"));
  for (const char* c : {"s", "k", "x", "b", "i", "t"})
    add(out, std::string("value_counts ") + c, slab::frame::value_counts(f, c));
  {  // quantile: the order statistics of the sorted column, read with copies
    LocalTable q;
    q.add(LocalColumn::float64("q", slab::frame::quantile(f, "x", {0.0, 0.1, 0.5, 0.75, 1.0})));
    q.add(LocalColumn::float64("qi", slab::frame::quantile(f, "i", {0.25, 0.5})));
    q.add(LocalColumn::float64("qb", slab::frame::quantile(f, "b", std::vector<double>{0.3, 0.9})));
    add(out, "quantile", q);
  }
  // shuffle: the same hash route, so each rank's rows come out alike (strings hash by their text).
  add(out, "shuffle s", slab::frame::shuffle(f, {"s"}).local_table());
  add(out, "shuffle i x", slab::frame::shuffle(f, {"i", "x"}, 3).local_table());
  add(out, "shuffle b t k", slab::frame::shuffle(f, {"b", "t", "k"}, 2).local_table());
  const Frame right = Frame::from_local_table(e, right_for(n / 3 + 2, e.comm().rank(), e.comm().size()), 300);
  for (JoinKind how : {JoinKind::inner, JoinKind::left, JoinKind::right, JoinKind::outer})
    for (JoinStrategy strategy : {JoinStrategy::broadcast, JoinStrategy::hash}) {
      if (how == JoinKind::outer && strategy == JoinStrategy::broadcast) continue;
      join(right, {"k"}, how, strategy);       // many to many, dense: the direct array
      join(right, {"i"}, how, strategy);       // nulls and extremes: key words
      join(right, {"s", "k"}, how, strategy);  // two dictionaries: remapped codes, packed words
    }
  join(small, {"s"}, JoinKind::outer, JoinStrategy::hash);
  group({"i"}, {{"y", {AggOp::sum, AggOp::count}},
                {"s", {AggOp::min, AggOp::max, AggOp::first, AggOp::last}},
                {"x", {AggOp::size}}});               // int64 keys with nulls and extremes, mostly one row a group
  group({"x"}, {{"y", {AggOp::count, AggOp::sum}}});  // float keys: NaN, +-inf, -0.0
  group({"s", "i"}, {{"y", {AggOp::sum, AggOp::count, AggOp::size}}, {"b", {AggOp::last}}}, false);
  group({"b"}, {{"s", {AggOp::count, AggOp::min, AggOp::last}}}, false);
  {  // sort=False: no order is asked, so compare the groups in key order
    const Frame u =
        slab::frame::groupby(f, {"k"}, {{"y", {AggOp::sum, AggOp::count}}, {"s", {AggOp::max}}}, {.sort = false});
    add(out, "groupby k (sort=False)", slab::frame::sort_values(u, {"k"}, true).gather_all());
  }
  add(out, "named aggregations",  // groupby, then its columns projected under the names asked
      f.groupby({"s"})
          .agg(std::vector<slab::frame::NamedAgg>{{"total", "y", "sum"}, {"rows", "i", "count"}})
          .gather_all());
  group({"t", "b"}, {{"i", {AggOp::max, AggOp::sum}}});
  // Group transforms: every sequential operation on every type it takes, keys with nulls kept or dropped, float
  // keys (NaN, -0.0), one group, and groups of one row.
  for (GroupScan op : {GroupScan::cumsum, GroupScan::cumprod, GroupScan::cummin, GroupScan::cummax})
    for (const char* c : {"y", "x", "i", "b"}) transform({"s"}, {.op = op, .column = c});
  transform({"k"}, {.op = GroupScan::cummin, .column = "t"});
  transform({"b", "s"}, {.op = GroupScan::cummax, .column = "t"}, false);
  transform({"s"}, {.op = GroupScan::cumcount});
  transform({"x"}, {.op = GroupScan::cumsum, .column = "y"});
  transform({"i"}, {.op = GroupScan::cumsum, .column = "y"});  // nulls, extremes: mostly one row a group
  for (std::int64_t p : {1, -2, 0, 4})
    for (const char* c : {"i", "x", "s", "b", "t"}) {
      transform({"k"}, {.op = GroupScan::shift, .column = c, .periods = p});
      if (std::string(c) != "s" && std::string(c) != "t")
        transform({"b"}, {.op = GroupScan::diff, .column = c, .periods = p}, false);
    }
  for (GroupScan op : {GroupScan::ffill, GroupScan::bfill})
    for (const char* c : {"s", "i", "y", "b", "t"}) transform({"k"}, {.op = op, .column = c});
  for (AggOp agg : {AggOp::size, AggOp::count, AggOp::sum, AggOp::mean, AggOp::std, AggOp::var, AggOp::min, AggOp::max,
                    AggOp::first, AggOp::last}) {
    transform({"s"}, {.op = GroupScan::transform, .column = "y", .agg = agg});
    transform({"k", "b"}, {.op = GroupScan::transform, .column = "i", .agg = agg}, false);
    if (agg != AggOp::sum && agg != AggOp::mean && agg != AggOp::std && agg != AggOp::var)
      transform({"k"}, {.op = GroupScan::transform, .column = "s", .agg = agg});
  }
  transform({"y"}, {.op = GroupScan::transform, .column = "x", .agg = AggOp::sum}, false);
  // The aggregates of a group's values sorted: NaN, +-inf and -0.0 (x), masks and extremes (i), booleans, codes.
  for (const char* c : {"x", "i", "b", "y"}) {
    transform({"s"}, {.op = GroupScan::transform, .column = c, .agg = AggOp::median});
    transform({"k"}, {.op = GroupScan::transform, .column = c, .agg = AggOp::quantile, .q = 0.3});
    transform({"b", "s"}, {.op = GroupScan::transform, .column = c, .agg = AggOp::nunique}, false);
  }
  for (double q : {0.0, 1.0, 0.75})
    transform({"b"}, {.op = GroupScan::transform, .column = "x", .agg = AggOp::quantile, .q = q});
  for (const char* c : {"s", "t"}) transform({"k"}, {.op = GroupScan::transform, .column = c, .agg = AggOp::nunique});
  // Rolling within groups: every aggregation, the variance, windows of one row to more than a group, min_periods;
  // NaN, +-inf and -0.0 (x, where the dense sum is not taken), masks and extremes (i), booleans.
  for (RollingOp op :
       {RollingOp::mean, RollingOp::sum, RollingOp::min, RollingOp::max, RollingOp::std, RollingOp::count}) {
    for (const char* c : {"x", "y", "i"}) {
      // Not i's sums and means: the host's running sum keeps the rounding of the int64 extremes it added and
      // removed for the rest of the group, while the device's runs start afresh, exact (test_kernels_transform
      // covers int64 windows).
      if (std::string(c) == "i" && (op == RollingOp::sum || op == RollingOp::mean)) continue;
      transform({"s"}, {.op = GroupScan::rolling, .column = c, .window = RollingWindow::count(3), .rolling_op = op});
    }
    transform({"k"}, {.op = GroupScan::rolling, .column = "y", .window = RollingWindow::count(1), .rolling_op = op});
    transform({"b"},
              {.op = GroupScan::rolling, .column = "x", .window = RollingWindow::count(300, 2), .rolling_op = op},
              false);
  }
  transform({"s"}, {.op = GroupScan::rolling, .column = "b", .window = RollingWindow::count(4, 0)});
  transform({"k", "b"},
            {.op = GroupScan::rolling,
             .column = "y",
             .window = RollingWindow::count(5, 1),
             .rolling_op = RollingOp::std,
             .rolling_var = true},
            false);
  {  // one group: every row's key equal
    const Frame one = slab::frame::assign(f, "one", slab::frame::lit(std::int64_t{1}));
    add(out, "group cumsum y by one",
        slab::frame::group_transform(one, {"one"}, {.op = GroupScan::cumsum, .column = "y"}).frame().local_table());
    // The row-parallel operations' scans across the whole partition.
    const std::vector<GroupTransform> whole{{.op = GroupScan::cummin, .column = "x"},
                                            {.op = GroupScan::cummax, .column = "i"},
                                            {.op = GroupScan::cumsum, .column = "i"},
                                            {.op = GroupScan::ffill, .column = "x"},
                                            {.op = GroupScan::bfill, .column = "i"},
                                            {.op = GroupScan::shift, .column = "s", .periods = 3},
                                            {.op = GroupScan::transform, .column = "x", .agg = AggOp::max},
                                            {.op = GroupScan::transform, .column = "i", .agg = AggOp::first},
                                            {.op = GroupScan::transform, .column = "x", .agg = AggOp::last},
                                            {.op = GroupScan::transform, .column = "i", .agg = AggOp::sum}};
    // Signed zeros only (x * 0: NaN where x is NaN or infinite): min and max keep the earlier of equals, nunique
    // counts -0.0 and 0.0 once.
    const Frame zeros = slab::frame::assign(f, "z", slab::frame::col("x") * slab::frame::lit(0.0));
    for (const GroupTransform& what : {GroupTransform{.op = GroupScan::cummin, .column = "z"},
                                       GroupTransform{.op = GroupScan::cummax, .column = "z"},
                                       GroupTransform{.op = GroupScan::transform, .column = "z", .agg = AggOp::min},
                                       GroupTransform{.op = GroupScan::transform, .column = "z", .agg = AggOp::max},
                                       GroupTransform{.op = GroupScan::transform, .column = "z", .agg = AggOp::nunique},
                                       GroupTransform{.op = GroupScan::transform, .column = "z", .agg = AggOp::median}})
      add(out,
          std::string("group ") + slab::frame::to_string(what.op) + " z by s " +
              (what.op == GroupScan::transform ? slab::frame::to_string(what.agg) : ""),
          slab::frame::group_transform(zeros, {"s"}, what).frame().local_table());
    for (const GroupTransform& what : whole)
      add(out,
          std::string("group ") + slab::frame::to_string(what.op) + " " + what.column + " by one " +
              (what.op == GroupScan::transform ? slab::frame::to_string(what.agg) : ""),
          slab::frame::group_transform(one, {"one"}, what).frame().local_table());
  }
  add(out, "cumsum x", slab::frame::cumsum(f, {"x"}).local_table());
  for (std::int64_t k : {1, 3, -2, 0, 1500})
    add(out, "shift " + std::to_string(k), slab::frame::shift(f, k).local_table());
  for (std::int64_t k : {1, -1}) add(out, "diff " + std::to_string(k), slab::frame::diff(f, k).local_table());
  add(out, "diff y", slab::frame::diff(f, 2, {"y"}).local_table());
  add(out, "select", slab::frame::select(f, {"s", "x", "i"}).local_table());
  // concat: every rank's rows moved to even blocks by position (the range exchange with no key); the second
  // frame's strings have another dictionary, so its codes are recoded into the union's.
  {  // from_arrays and from_array: each column one strided copy per overlapping source chunk
    const slab::Array<double> ax = slab::random_uniform(e, {n}, slab::Split::rows, 31, -1.0, 1.0, 700);
    const slab::Array<std::int64_t> ai(ax > 0.25);
    add(out, "from_arrays", slab::frame::from_arrays({{"x", ax}, {"i", ai}}).local_table());
    const slab::Array<double> m = slab::random_uniform(e, {n, 3}, slab::Split::rows, 33, 0.0, 1.0, 500);
    add(out, "from_array", slab::frame::from_array(m, {"a", "b", "c"}).local_table());
  }
  {  // resample: the times' bounds, the bins and the filled bins; gaps (filtered rows), rows out of time order
    using slab::frame::resample;
    const std::vector<Aggregation> aggs{{"x", {AggOp::sum, AggOp::mean, AggOp::min, AggOp::first, AggOp::last}},
                                        {"i", {AggOp::count, AggOp::max, AggOp::median}},
                                        {"s", {AggOp::last, AggOp::size}}};
    constexpr std::int64_t minute = 60'000'000'000;
    add(out, "resample 7min", resample(f, 7 * minute, "t", aggs).gather_all());
    add(out, "resample gaps 3min",
        resample(slab::frame::filter(f, col("k") > 100), 3 * minute, "t", aggs).gather_all());
    add(out, "resample unsorted 1h", resample(slab::frame::shuffle(f, {"k"}), 60 * minute, "t", aggs).gather_all());
  }
  add(out, "concat", slab::frame::concat({f, f}).local_table());
  add(out, "concat recoded",
      slab::frame::concat({f, slab::frame::fillna(f, std::string("zz"), {"s"}), f}).local_table());
  add(out, "dropna x i", slab::frame::dropna(f, {"x", "i"}).local_table());
  if (n == 4097)  // 86,400 rows in partitions of an hour
    add(out, "timeseries", slab::frame::timeseries(e, "2000-01-01", "2000-01-02", "1s", 3, "1h").local_table());
  return out;
}

// 2^20 + 1 rows at 1 rank only: at more ranks the kernels see the same large partitions again (split), and the
// distribution is the small sizes' (about 40 s of CI's budget).
std::vector<std::int64_t> sizes(int ranks) {
  if (kAddressSanitizer || ranks > 1) return {0, 1, 31, 32, 4095, 4096, 4097};
  return {0, 1, 31, 32, 4095, 4096, 4097, (1 << 20) + 1};
}

}  // namespace

namespace {
// Every operation of compute() on `e` (the reference place, or a GPU with its device tier in GPU memory) against
// the host kernels, bitwise (the group transforms compute() marks: within rounding), and none of those with a
// device path recorded as a fallback.
void expect_bitwise_the_host_kernels(slab::Engine& e) {
  std::map<std::int64_t, std::vector<Result>> host;
  {
    slab::Engine h(options_for(false));
    ASSERT_FALSE(h.execution().device_kernels());
    for (std::int64_t n : sizes(e.comm().size())) host[n] = compute(h, n);
  }
  for (std::int64_t n : sizes(e.comm().size())) {
    const std::vector<Result> got = compute(e, n);
    ASSERT_EQ(got.size(), host[n].size()) << "n = " << n;
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(matches(got[i], host[n][i])) << "n = " << n << ": the device paths differ from the host in "
                                               << got[i].what << ", " << first_difference(got[i], host[n][i]);
  }
  for (const char* op : {"cumsum",
                         "shift",
                         "diff",
                         "select",
                         "dropna",
                         "recipes",
                         "timeseries",
                         "rolling",
                         "groupby",
                         "merge",
                         "assign",
                         "filter",
                         "shuffle",
                         "sort_values",
                         "project",
                         "drop_duplicates_local",
                         "drop_duplicates",
                         "quantile",
                         "value_counts_local",
                         "value_counts",
                         "concat",
                         "group_transform",
                         "from_arrays",
                         "resample-bins"})
    EXPECT_EQ(e.tracer().fallbacks().count(op), 0u) << op << " has a device path but fell back to the host";
}
}  // namespace

TEST(FrameDevicePaths, ReferencePlaceIsBitwiseTheHostKernels) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  slab::Engine e(options_for(true));
  ASSERT_EQ(e.execution().place(), slab::ExecutionPlace::reference);
  expect_bitwise_the_host_kernels(e);
}

// The same on a GPU with frames in GPU memory (--device-memory): device tasks read their batches there, host tasks
// run on staged copies. Ranks sharing one GPU are fine (each has its own stream and pool).
TEST(FrameDevicePaths, GpuMemoryIsBitwiseTheHostKernels) {
  slab::EngineOptions options = slab::testing::engine_options();
  options.device_memory = true;
  slab::Engine e(options);
  if (e.execution().place() != slab::ExecutionPlace::cuda)
    GTEST_SKIP() << "no CUDA device on this machine (or no CUDA build): frames on GPU memory are compiled but not "
                    "run here";
  expect_bitwise_the_host_kernels(e);
}

// A time window's std: the host slides one compensated variance over the whole partition and never recomputes
// it, the device restarts it every kRollingRun outputs, so the two agree within rounding (and on which rows
// have none).
TEST(FrameDevicePaths, TimeWindowStdIsTheHostsWithinRounding) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  auto stds = [](bool reference, const char* column, const char* span) {
    slab::Engine e(options_for(reference));
    const Frame f = Frame::from_local_table(e, table_for(20000, e.comm().rank(), e.comm().size()), 1000);
    const auto w = slab::frame::RollingWindow::parse(span);
    const LocalTable t = slab::frame::rolling(f, column, w, {slab::frame::RollingOp::std}, "t").local_table();
    if (reference) EXPECT_EQ(e.tracer().fallbacks().count("rolling"), 0u);
    return t.columns.at(0).floats;
  };
  for (const char* column : {"x", "y"})
    for (const char* span : {"7min", "20h"}) {
      const std::vector<double> host = stds(false, column, span), device = stds(true, column, span);
      ASSERT_EQ(host.size(), device.size());
      std::size_t values = 0;
      for (std::size_t i = 0; i < host.size(); ++i) {
        ASSERT_EQ(std::isnan(host[i]), std::isnan(device[i])) << column << " " << span << " row " << i;
        if (std::isnan(host[i])) continue;
        ++values;
        EXPECT_NEAR(device[i], host[i], 1e-9 * (1.0 + std::abs(host[i]))) << column << " " << span << " row " << i;
      }
      if (!host.empty()) EXPECT_GT(values, host.size() / 2) << column << " " << span;
    }
}

// Series' reductions: per partition OpsKernels::column_moments on the reference place, the host's row-order pass
// otherwise, merged alike. The serial instantiation folds rows in order, so count, sum, mean, min and max are
// bitwise the host's; std within rounding (M2's update differs in its last bits). No fallback on the reference place.
TEST(FrameDevicePaths, SeriesReductionsAreTheHosts) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  auto run = [](bool reference, std::int64_t n) {
    slab::Engine e(options_for(reference));
    const Frame f = Frame::from_local_table(e, table_for(n, e.comm().rank(), e.comm().size()), 1000);
    std::vector<double> out;
    for (const char* c : {"i", "x", "y", "b", "t", "k"}) {
      const slab::frame::Series s(f, c);
      out.insert(out.end(), {static_cast<double>(s.count()), s.sum(), s.mean(), s.min(), s.max(), s.std()});
    }
    out.push_back(static_cast<double>(slab::frame::Series(f, "s").count()));
    const LocalTable d = f.describe();
    for (const auto& col : d.columns) out.insert(out.end(), col.floats.begin(), col.floats.begin() + 4);
    if (reference) EXPECT_EQ(e.tracer().fallbacks().count("series"), 0u);
    if (reference) EXPECT_EQ(e.tracer().fallbacks().count("describe"), 0u);
    return out;
  };
  for (std::int64_t n : {0, 1, 31, 4097, 20000}) {
    const std::vector<double> host = run(false, n), device = run(true, n);
    ASSERT_EQ(host.size(), device.size()) << "n = " << n;
    for (std::size_t i = 0; i < host.size(); ++i) {
      const bool is_std = (i < 36 && i % 6 == 5) || (i > 36 && (i - 37) % 4 == 2);
      if (std::isnan(host[i]) || std::isnan(device[i])) {
        EXPECT_EQ(std::isnan(host[i]), std::isnan(device[i])) << "n = " << n << ", value " << i;
      } else if (is_std) {
        EXPECT_NEAR(device[i], host[i], 1e-12 * (1.0 + std::abs(host[i]))) << "n = " << n << ", value " << i;
      } else {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(device[i]), std::bit_cast<std::uint64_t>(host[i]))
            << "n = " << n << ", value " << i << ": " << device[i] << " vs the host's " << host[i];
      }
    }
  }
}

// groupby's std and var: the host folds a rank's rows into one Welford state, the device folds pieces of
// kGroupPiece rows of a partition and merges them by Chan's formula, so the two agree within rounding.
TEST(FrameDevicePaths, GroupbyStdAndVarAreTheHostsWithinRounding) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  using slab::frame::AggOp;
  auto run = [](bool reference, const std::vector<std::string>& keys) {
    slab::Engine e(options_for(reference));
    const Frame f = Frame::from_local_table(e, table_for(20000, e.comm().rank(), e.comm().size()), 1000);
    const LocalTable t =
        slab::frame::groupby(f, keys, {{"x", {AggOp::std, AggOp::var}}, {"i", {AggOp::std}}, {"y", {AggOp::var}}})
            .gather_all();
    if (reference) EXPECT_EQ(e.tracer().fallbacks().count("groupby"), 0u);
    return t;
  };
  for (const std::vector<std::string> keys : {std::vector<std::string>{"s"}, std::vector<std::string>{"b", "s"}}) {
    const LocalTable host = run(false, keys), device = run(true, keys);
    ASSERT_EQ(host.columns.size(), device.columns.size());
    for (std::size_t c = keys.size(); c < host.columns.size(); ++c) {
      const auto &h = host.columns[c].floats, &d = device.columns[c].floats;
      ASSERT_EQ(h.size(), d.size()) << host.columns[c].name;
      ASSERT_FALSE(h.empty());
      for (std::size_t g = 0; g < h.size(); ++g) {
        ASSERT_EQ(std::isnan(h[g]), std::isnan(d[g])) << host.columns[c].name << " group " << g;
        if (!std::isnan(h[g])) EXPECT_NEAR(d[g], h[g], 1e-9 * std::abs(h[g])) << host.columns[c].name << " group " << g;
      }
    }
  }
}

// A time window's checks on the device (each partition's TimeBounds): the same errors as the host's, whether the
// disorder is inside a partition, between partitions or ranks, or the column has a null or a NaT.
TEST(FrameDevicePaths, TimeWindowChecksAreTheHostsErrors) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  using slab::frame::LocalColumn;
  using slab::frame::RollingWindow;
  const std::int64_t second = 1'000'000'000;
  // 40 rows on every rank together, rank r's block of them; `fix` edits the global times first.
  auto message = [](slab::Engine& e,
                    const std::function<void(std::vector<std::int64_t>&, std::vector<std::uint8_t>&)>& fix) {
    const int r = e.comm().rank(), p = e.comm().size();
    std::vector<std::int64_t> all(40);
    std::vector<std::uint8_t> ok(40, 1);
    for (std::int64_t i = 0; i < 40; ++i) all[static_cast<std::size_t>(i)] = i * 1'000'000'000;
    fix(all, ok);
    const std::int64_t b = 40 * r / p, en = 40 * (r + 1) / p;
    LocalTable t;
    t.add(LocalColumn::timestamp("t", std::vector<std::int64_t>(all.begin() + b, all.begin() + en),
                                 std::vector<std::uint8_t>(ok.begin() + b, ok.begin() + en)));
    t.add(LocalColumn::float64("x", std::vector<double>(static_cast<std::size_t>(en - b), 1.0)));
    const Frame f = Frame::from_local_table(e, t, 4);
    try {
      (void)slab::frame::rolling(f, "x", RollingWindow::parse("3s"), {slab::frame::RollingOp::sum}, "t").gather_all();
    } catch (const slab::InvalidArgument& err) {
      return err.message();
    }
    return std::string("no error");
  };
  const std::vector<std::function<void(std::vector<std::int64_t>&, std::vector<std::uint8_t>&)>> cases{
      [](auto&, auto&) {},                                                       // sorted: no error
      [](auto& t, auto&) { std::swap(t[1], t[2]); },                             // inside a partition
      [&](auto& t, auto&) { t[4] = t[3] - second; },                             // at a partition's first row
      [&](auto& t, auto&) { t[20] = -5 * second; },                              // at a rank boundary where p is 2
      [](auto&, auto& ok) { ok[17] = 0; },                                       // a null
      [](auto& t, auto&) { t[0] = std::numeric_limits<std::int64_t>::min(); }};  // a NaT
  for (std::size_t c = 0; c < cases.size(); ++c) {
    slab::Engine h(options_for(false)), d(options_for(true));
    const std::string want = message(h, cases[c]), got = message(d, cases[c]);
    EXPECT_EQ(got, want) << "case " << c;
    if (c > 0) EXPECT_NE(want, "no error") << "case " << c;
  }
}

TEST(FrameDevicePaths, OperationsWithoutADevicePathStillRecordTheirFallback) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  slab::Engine e(options_for(true));
  const Frame f = Frame::from_local_table(e, table_for(100, e.comm().rank(), e.comm().size()), 10);
  (void)slab::frame::cumsum(f).gather_all();
  EXPECT_EQ(e.tracer().fallbacks().count("cumsum"), 0u);
  (void)f.describe();  // moments on the device, quartiles by the device sort
  EXPECT_EQ(e.tracer().fallbacks().count("describe"), 0u);
  // groupby's device path covers nunique, median and quantile.
  (void)slab::frame::groupby(f, {"s"}, {{"i", {slab::frame::AggOp::nunique}}}).gather_all();
  (void)slab::frame::groupby(f, {"s"}, {{"y", {slab::frame::AggOp::median}}}).gather_all();
  EXPECT_EQ(e.tracer().fallbacks().count("groupby"), 0u);
  // The group transforms are on the device, rolling within groups included.
  (void)f.groupby("s")["y"].cumsum().gather_all();
  (void)f.groupby("s")["y"].transform("mean").gather_all();
  (void)f.groupby("s")["y"].transform("median").gather_all();
  (void)f.groupby("s")["i"].transform("nunique").gather_all();
  using slab::frame::GroupScan;
  (void)slab::frame::group_transform(
      f, {"s"}, {.op = GroupScan::rolling, .column = "y", .window = slab::frame::RollingWindow::count(3)})
      .gather_all();
  (void)f.groupby("s")["y"].rolling(2).max().gather_all();
  EXPECT_EQ(e.tracer().fallbacks().count("group_transform"), 0u);
  // A user's fill function is a host loop: each frame made by one records a fallback under its name.
  const auto fill = [](std::int64_t first, slab::frame::BatchBuilder& out) {
    auto c = out.column<std::int64_t>(0);
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = first + static_cast<std::int64_t>(i);
  };
  const slab::frame::Schema one({{"v", ElementType::int64}});
  (void)slab::frame::generate(e, one, 50, 10, "users-fill", fill).gather_all();
  (void)slab::frame::generate(e, one, 20, 10, "users-fill", fill).gather_all();
  ASSERT_EQ(e.tracer().fallbacks().count("users-fill"), 1u);
  EXPECT_EQ(e.tracer().fallbacks().at("users-fill"), 2u);
}

// A broadcast join copies and sorts its build side in the device tier when planned, outside any task: where that
// allocation fails on one rank only (here rank 1's memory is below the build side), every rank ends with that
// rank's OutOfMemory, naming the buffer, instead of the others going on alone.
TEST(FrameDevicePaths, ABroadcastBuildSideThatDoesNotFitOnOneRankFailsOnEveryRank) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  const int rank = slab::testing::world_rank(), nranks = slab::testing::world_size();
  if (nranks < 2) GTEST_SKIP() << "needs a second rank";
  slab::EngineOptions o = options_for(true);
  if (rank == 1) {  // nowhere to put the build side: the tiers below its size, no spill files
    o.device_memory_limit = slab::ByteLimit{256 * 1024, std::nullopt};
    o.host_memory_limit = slab::ByteLimit{256 * 1024, std::nullopt};
    o.disk_limit = 0;
  }
  slab::Engine e(o);
  // Every row on rank 0: rank 1 holds no partition, only (were it to fit) the gathered build side, the smaller one.
  const Frame left = Frame::from_local_table(e, rank == 0 ? table_for(20000, 0, 1) : table_for(0, 0, 1), 500);
  const Frame right = Frame::from_local_table(e, rank == 0 ? right_for(60000, 0, 1) : right_for(0, 0, 1), 500);
  try {
    (void)slab::frame::merge(left, right, {"k"},
                             {.how = slab::frame::JoinKind::inner, .strategy = slab::frame::JoinStrategy::broadcast})
        .gather_all();
    ADD_FAILURE() << "rank " << rank << ": the merge went on";
  } catch (const slab::OutOfMemory& error) {
    EXPECT_NE(std::string(error.what()).find("merge build side"), std::string::npos) << error.what();
  }
}

// A hash merge under a small memory limit, where the string key's five values are hot keys: the samples' key hashes
// are taken on the device on the reference place (merge-sample), and must find the hot keys the host finds, so
// that every row goes to the same partition pair and each rank's result is bitwise the host's. Inner and left
// joins, on the string alone and on (s, k).
TEST(FrameDevicePaths, HashMergeWithHotKeysIsBitwiseTheHost) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  const int rank = slab::testing::world_rank(), nranks = slab::testing::world_size();
  auto run = [&](bool reference) {
    slab::EngineOptions o = options_for(reference);
    o.device_memory_limit = slab::ByteLimit{256 * 1024, std::nullopt};
    slab::Engine e(o);
    const Frame left = Frame::from_local_table(e, table_for(6000, rank, nranks), 500);
    const Frame right = Frame::from_local_table(e, right_for(40, rank, nranks), 10);
    std::vector<Result> out;
    for (const auto how : {slab::frame::JoinKind::inner, slab::frame::JoinKind::left})
      for (const std::vector<std::string>& on : {std::vector<std::string>{"s"}, std::vector<std::string>{"s", "k"}})
        add(out, "hot merge " + std::to_string(static_cast<int>(how)) + " on " + std::to_string(on.size()),
            slab::frame::merge(left, right, on, {.how = how, .strategy = slab::frame::JoinStrategy::hash})
                .local_table());
    return out;
  };
  const std::vector<Result> host = run(false), got = run(true);
  ASSERT_EQ(got.size(), host.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(got[i] == host[i]) << got[i].what << ": " << first_difference(got[i], host[i]);
}

// A hash merge on more key columns than the device kernels take (kMaxKeyColumns) falls back whole, hot keys
// included: its replicated rows too are picked on the host (the device's row hash takes at most kMaxKeyColumns
// keys). Nine int64 keys, two distinct tuples (both hot under a 256 KiB limit): bitwise the host, recorded as a
// merge fallback on the reference place.
TEST(FrameDevicePaths, HotKeyMergeOnTooManyKeysFallsBackWhole) {
  const int rank = slab::testing::world_rank(), nranks = slab::testing::world_size();
  auto table = [&](std::int64_t n, double scale) {
    const std::int64_t b = n * rank / nranks, e = n * (rank + 1) / nranks;
    LocalTable t;
    std::vector<std::string> on;
    for (int c = 0; c < 9; ++c) {
      std::vector<std::int64_t> v;
      for (std::int64_t r = b; r < e; ++r) v.push_back(c == 0 ? r % 2 : 7);
      t.add(LocalColumn::int64("k" + std::to_string(c), v));
    }
    std::vector<double> w;
    for (std::int64_t r = b; r < e; ++r) w.push_back(scale * static_cast<double>(r));
    t.add(LocalColumn::float64(scale > 1 ? "w" : "v", w));
    return t;
  };
  std::vector<std::string> on;
  for (int c = 0; c < 9; ++c) on.push_back("k" + std::to_string(c));
  auto run = [&](bool reference) {
    slab::EngineOptions o = options_for(reference);
    o.device_memory_limit = slab::ByteLimit{256 * 1024, std::nullopt};
    slab::Engine e(o);
    const Frame left = Frame::from_local_table(e, table(1200, 1.0), 200);
    const Frame right = Frame::from_local_table(e, table(4, 2.0), 10);
    std::vector<Result> out;
    add(out, "hot merge on nine keys",
        slab::frame::merge(left, right, on, {.strategy = slab::frame::JoinStrategy::hash}).local_table());
    if (reference) EXPECT_GT(e.tracer().fallbacks().count("merge"), 0u);
    return out;
  };
  const std::vector<Result> host = run(false);
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  const std::vector<Result> got = run(true);
  ASSERT_EQ(got.size(), host.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(got[i] == host[i]) << got[i].what << ": " << first_difference(got[i], host[i]);
}

// to_array on the device: one cast per piece of a partition into the chunk (OpsKernels::column_values), with the
// host's values bitwise (int64 extremes as doubles, NaN, -0.0 and infinities, masked rows as NaN, bools as 0 and
// 1) and no fallback, in chunks that cut partitions (77) or follow them (0); a null read as int64 is the host's
// error, naming the same first row.
TEST(FrameDevicePaths, ToArrayIsTheHostsValues) {
  struct Got {
    std::vector<std::vector<double>> doubles;
    std::vector<std::vector<std::int64_t>> ints;
    std::vector<std::string> errors;
  };
  auto run = [](bool reference, std::int64_t n) {
    slab::Engine e(options_for(reference));
    const Frame f = Frame::from_local_table(e, table_for(n, e.comm().rank(), e.comm().size()), 500);
    Got got;
    for (std::int64_t chunk : {std::int64_t{0}, std::int64_t{77}}) {
      for (const char* c : {"i", "x", "y", "b", "t", "k"})
        got.doubles.push_back(slab::frame::to_array<double>(f, c, chunk).gather_all());
      for (const char* c : {"t", "k"})
        got.ints.push_back(slab::frame::to_array<std::int64_t>(f, c, chunk).gather_all());
      for (const char* c : {"i", "b"}) {
        std::string m = "no error";
        try {
          (void)slab::frame::to_array<std::int64_t>(f, c, chunk).gather_all();
        } catch (const slab::TypeError& ex) {
          m = ex.message();
        }
        got.errors.push_back(m.substr(0, m.find(" (rank")));
      }
    }
    EXPECT_EQ(e.tracer().fallbacks().count("to_array"), 0u) << (reference ? "reference place" : "host");
    return got;
  };
  for (std::int64_t n : {0, 1, 3000}) {
    const Got want = run(false, n);
    if (n == 3000) {
      EXPECT_EQ(want.errors[0],
                "to_array: column 'i' has a null at row 3; read it as double (NaN) or fill the nulls first");
      EXPECT_EQ(want.errors[1],
                "to_array: column 'b' has a null at row 4; read it as double (NaN) or fill the nulls first");
    }
    if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
    const Got got = run(true, n);
    ASSERT_EQ(got.doubles.size(), want.doubles.size());
    for (std::size_t a = 0; a < got.doubles.size(); ++a) {
      ASSERT_EQ(got.doubles[a].size(), want.doubles[a].size()) << "array " << a << ", n = " << n;
      for (std::size_t i = 0; i < got.doubles[a].size(); ++i)
        ASSERT_TRUE(std::memcmp(&got.doubles[a][i], &want.doubles[a][i], sizeof(double)) == 0)
            << "array " << a << " row " << i << ", n = " << n << ": " << got.doubles[a][i] << " vs "
            << want.doubles[a][i];
    }
    EXPECT_EQ(got.ints, want.ints) << "n = " << n;
    EXPECT_EQ(got.errors, want.errors) << "n = " << n;
  }
}

TEST(FrameDevicePaths, RecipesMakeTheValuesOfTheirFillLoops) {
  for (bool reference : {false, true}) {
    if (reference && !slab::built_with_kernel_reference) continue;
    slab::Engine e(options_for(reference));
    for (std::int64_t n : {0, 1, 999, 1000, 4097}) {
      std::vector<Result> want, got;
      add(want, "filled", filled(e, n).gather_all());
      add(got, "filled", slab::frame::generate(e, recipe_schema(), n, 1000, "recipes", recipes()).gather_all());
      EXPECT_TRUE(got == want) << "n = " << n << (reference ? " on the reference place" : " on the host");
    }
  }
}

TEST(FrameDevicePaths, RecipesThatDoNotFitTheirColumnAreRefusedByName) {
  slab::Engine e(options_for(false));
  const auto make = [&](std::vector<R> r) { return slab::frame::generate(e, recipe_schema(), 10, 0, "bad", r); };
  auto with = [](std::size_t c, R r) {
    std::vector<R> v = recipes();
    v[c] = r;
    return v;
  };
  const auto refused = [&](std::vector<R> r, const char* what) {
    try {
      (void)make(std::move(r));
      ADD_FAILURE() << "not refused: " << what;
    } catch (const slab::Error& err) {
      EXPECT_NE(std::string(err.what()).find(what), std::string::npos) << err.what();
    }
  };
  const std::vector<R> all = recipes();
  refused(std::vector<R>(all.begin(), all.end() - 1), "6 column recipes for 7 columns");
  EXPECT_THROW((void)make(with(0, R::uniform(1, 0.0, 1.0))), slab::TypeError);
  refused(with(0, R::uniform(1, 0.0, 1.0)), "column 'r'");
  EXPECT_THROW((void)make(with(6, R::hash_mod(1, 10))), slab::TypeError);
  refused(with(6, R::hash_mod(1, 10)), "column 'u'");
  refused(with(2, R::hash_mod(1, 0)), "a modulus of 0");
  refused(with(3, R::hash_mod(4, 27)), "column 's'");     // past the 26 names of the dictionary
  refused(with(3, R::hash_mod(4, 20, 7)), "column 's'");  // 7 + 19 = 26: past the last code
  refused(with(3, R::affine(0, 1)), "column 's'");
  refused(with(4, R::multiply_mod(7, 3)), "column 'b'");  // booleans are 0 or 1
  (void)make(with(3, R::hash_mod(4, 20, 6)));             // codes 6..25: fine
}

// A device path whose kernel scratch cannot be had on one rank (its partition fits the device limit, the sort's
// buffers next to it do not, and nothing can spill: no host room, no disk) ends in the same OutOfMemory on every rank,
// naming the bytes, the purpose and the operation's task, not a hang and not a result. On the reference place, where
// the kernel scratch is the manager's device-tier memory as on a GPU.
TEST(FrameDevicePaths, KernelScratchThatCannotBeHadFailsOnEveryRankNamingTheOperation) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  const int rank = slab::testing::world_rank(), nranks = slab::testing::world_size();
  slab::EngineOptions o = options_for(true);
  if (rank == nranks - 1) {
    o.device_memory_limit = slab::ByteLimit{96 * 1024, std::nullopt};
    o.host_memory_limit = slab::ByteLimit{96 * 1024, std::nullopt};
    o.disk_limit = 0;
  }
  slab::Engine e(o);
  slab::frame::LocalTable t;
  std::vector<std::int64_t> k(6000);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::int64_t>((i * 7919) % 6000);
  t.add(slab::frame::LocalColumn::int64("k", k));
  const Frame f = Frame::from_local_table(e, t, 6000);
  try {
    (void)slab::frame::sort_values(f, {"k"}).gather_all();
    ADD_FAILURE() << "rank " << rank << ": the sort went on";
  } catch (const slab::OutOfMemory& error) {
    // e.g. "cannot allocate 94 KiB for 'kernel scratch' on the device tier: limit 96 KiB, ... (in task 'sort_sample')"
    const std::string msg = error.message();
    EXPECT_NE(msg.find("cannot allocate"), std::string::npos) << msg;
    EXPECT_NE(msg.find(" KiB for 'kernel scratch'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(in task 'sort_"), std::string::npos) << msg;
    EXPECT_EQ(error.origin_rank(), nranks - 1) << msg;
  }
}
