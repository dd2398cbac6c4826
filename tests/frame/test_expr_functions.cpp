// Expression functions (log, exp, sqrt, round, clip, where, str.contains/lower/len) and timestamp literals,
// against pandas' answers on the same 12 rows (expr_functions_golden.inc, from expr_functions_golden.py), with the
// rows spread over the ranks in partitions of two.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../common/test_engine.hpp"
#include "slab/core/time.hpp"
#include "slab/frame/ops.hpp"

namespace fr = slab::frame;
using fr::col;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Golden {
  slab::ElementType type = slab::ElementType::float64;
  std::vector<double> f;
  std::vector<std::int64_t> i;  // int64 values, or booleans as 0/1
  std::vector<std::string> s;
  std::vector<std::uint8_t> valid;
  static Golden floats(std::vector<double> v) { return {slab::ElementType::float64, std::move(v), {}, {}, {}}; }
  static Golden ints(std::vector<std::int64_t> v, std::vector<std::uint8_t> valid) {
    return {slab::ElementType::int64, {}, std::move(v), {}, std::move(valid)};
  }
  static Golden bools(std::vector<std::int64_t> v, std::vector<std::uint8_t> valid) {
    return {slab::ElementType::boolean, {}, std::move(v), {}, std::move(valid)};
  }
  static Golden strings(std::vector<std::string> v, std::vector<std::uint8_t> valid) {
    return {slab::ElementType::string, {}, {}, std::move(v), std::move(valid)};
  }
};

const std::map<std::string, Golden>& golden() {
  static const std::map<std::string, Golden> g = {
#include "expr_functions_golden.inc"
  };
  return g;
}

/// The rows of expr_functions_golden.py, this rank's block of them, in partitions of two.
fr::Frame input(slab::Engine& e) {
  const std::vector<double> x = {-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 2.675, kNaN, 100.0, -3.0, 1e-3};
  const std::vector<std::int64_t> i = {-15, -25, 5, 0, 15, 25, 35, 1234, 0, 7, -7, 45};
  const std::vector<std::uint8_t> iv = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
  const std::vector<std::string> s = {"Apple", "banana",       "",     "CHERRY pie", "\u00c4Bc", "apple",
                                      "",      "Banana split", "kiwi", "",           "an",       "x"};
  const std::vector<std::uint8_t> sv = {1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1};
  std::vector<std::int64_t> ts, row;
  const std::int64_t t0 = slab::parse_timestamp("2024-03-10");
  for (std::int64_t k = 0; k < 12; ++k) {
    ts.push_back(t0 + k * 12 * 3600 * 1000000000LL);
    row.push_back(k);
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::int64("row", row))
      .add(fr::LocalColumn::float64("x", x))
      .add(fr::LocalColumn::int64("i", i, iv))
      .add(fr::LocalColumn::string("s", s, sv))
      .add(fr::LocalColumn::timestamp("ts", ts));
  const int p = e.comm().size(), r = e.comm().rank();
  return fr::Frame::from_local_table(e, t.slice(12 * r / p, 12 * (r + 1) / p), 2);
}

/// assign(name = expr), gathered on every rank, against pandas' column `name`.
void expect_golden(slab::Engine& e, const std::string& name, const fr::Expr& expr) {
  const fr::LocalTable got = fr::select(fr::assign(input(e), "out", expr), {"out"}).gather_all();
  const fr::LocalColumn& c = got["out"];
  const Golden& g = golden().at(name);
  ASSERT_EQ(c.type, g.type) << name;
  ASSERT_EQ(c.size(), 12u) << name;
  for (std::size_t k = 0; k < 12; ++k) {
    const bool null = c.is_null(k);
    switch (g.type) {
      case slab::ElementType::float64:
        if (std::isnan(g.f[k]))
          EXPECT_TRUE(std::isnan(c.floats[k])) << name << " row " << k << ": " << c.floats[k];
        else if (std::isinf(g.f[k]))
          EXPECT_EQ(c.floats[k], g.f[k]) << name << " row " << k;
        else
          EXPECT_NEAR(c.floats[k], g.f[k], 4e-16 * std::abs(g.f[k])) << name << " row " << k;
        break;
      case slab::ElementType::string:
        EXPECT_EQ(null, g.valid[k] == 0) << name << " row " << k;
        if (!null && g.valid[k]) EXPECT_EQ(c.strings[k], g.s[k]) << name << " row " << k;
        break;
      case slab::ElementType::boolean:
        EXPECT_EQ(null, g.valid[k] == 0) << name << " row " << k;
        if (!null && g.valid[k]) EXPECT_EQ(c.bools[k], g.i[k]) << name << " row " << k;
        break;
      default:
        EXPECT_EQ(null, g.valid[k] == 0) << name << " row " << k;
        if (!null && g.valid[k]) EXPECT_EQ(c.ints[k], g.i[k]) << name << " row " << k;
    }
  }
}

}  // namespace

TEST(ExprFunctions, MathAsNumPy) {
  slab::testing::Engine e;
  expect_golden(e, "log_x", col("x").log());
  expect_golden(e, "exp_x", fr::exp(col("x")));
  expect_golden(e, "sqrt_x", fr::sqrt(col("x")));
  expect_golden(e, "log_i", fr::log(col("i")));
}

TEST(ExprFunctions, RoundHalvesToEven) {
  slab::testing::Engine e;
  expect_golden(e, "round0_x", col("x").round());
  expect_golden(e, "round2_x", fr::round(col("x"), 2));
  expect_golden(e, "roundm1_x", col("x").round(-1));
  expect_golden(e, "roundm1_i", col("i").round(-1));
}

TEST(ExprFunctions, ClipAndWhere) {
  slab::testing::Engine e;
  expect_golden(e, "clip_x", col("x").clip(-1, 2));
  expect_golden(e, "clip_i", fr::clip(col("i"), 0, 20));
  expect_golden(e, "where_x", fr::where(col("x") > 0, col("x"), 0.0));
  expect_golden(e, "where_i", fr::where(col("i") > 0, col("i"), -col("i")));
  // A null bound is no bound.
  const fr::LocalTable t =
      fr::select(fr::assign(input(e), "c", col("x").clip(fr::lit(fr::Scalar{}), 1.0)), {"c"}).gather_all();
  EXPECT_EQ(t["c"].floats[0], -2.5);
  EXPECT_EQ(t["c"].floats[9], 1.0);
  EXPECT_THROW((void)fr::assign(input(e), "w", fr::where(col("x"), 1, 2)), slab::TypeError);
}

TEST(ExprFunctions, StringMethodsAsPandas) {
  slab::testing::Engine e;
  expect_golden(e, "contains_an", col("s").contains("an"));
  expect_golden(e, "contains_re", col("s").contains("^[Aa]"));
  expect_golden(e, "contains_lit", col("s").contains("a s", false));
  expect_golden(e, "lower_s", col("s").lower());
  expect_golden(e, "len_s", col("s").len());
  // Lower-cased strings compare with literals; a null from contains() is dropped by a filter.
  const fr::LocalTable apples = fr::filter(input(e), col("s").lower() == "apple").gather_all();
  EXPECT_EQ(apples["row"].ints, (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(fr::filter(input(e), col("s").contains("an")).len(), 3);
  EXPECT_THROW((void)fr::assign(input(e), "l", col("x").len()), slab::TypeError);
}

TEST(ExprFunctions, TimestampLiterals) {
  slab::testing::Engine e;
  const fr::LocalTable t = fr::filter(input(e), col("ts") >= "2024-03-11").gather_all();
  EXPECT_EQ(t["row"].ints, golden().at("ts_ge_rows").i);
  EXPECT_EQ(fr::filter(input(e), "2024-03-11 06:00:00" > col("ts")).len(), 3);
  EXPECT_EQ(fr::filter(input(e), col("ts") == "2024-03-10 12:00").len(), 1);
  try {
    (void)fr::filter(input(e), col("ts") < "2024-13-45");
    ADD_FAILURE() << "a bad timestamp literal was accepted";
  } catch (const slab::InvalidArgument& ex) {
    EXPECT_NE(std::string(ex.what()).find("'2024-13-45'"), std::string::npos) << ex.what();
  }
}
