// groupby against a serial std::map reference on the gathered input, at any rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "ops_test_util.hpp"
#include "slab/frame/groupby.hpp"

namespace fr = slab::frame;
using ops_test::Engine;

namespace {

const char* kNames5[] = {"ann", "bob", "cid", "dee", "eve"};

/// Rows r of [0, n) on this rank: id = h mod nid (null every 17th row when nulls), name (null every 13th),
/// x = 2U-1 (NaN every 11th), k = h mod 100.
fr::LocalTable make_input(slab::Comm& comm, std::int64_t n, std::int64_t nid, bool nulls, bool only_rank0 = false) {
  auto [b, e] = ops_test::my_range(n, comm.rank(), comm.size());
  if (only_rank0) {
    b = comm.rank() == 0 ? 0 : n;
    e = comm.rank() == 0 ? n : n;
  }
  std::vector<std::int64_t> id, k;
  std::vector<std::uint8_t> idv, namev;
  std::vector<std::string> name;
  std::vector<double> x;
  for (std::int64_t r = b; r < e; ++r) {
    id.push_back(static_cast<std::int64_t>(slab::counter_hash(31, r) % nid) - 2);
    idv.push_back(nulls && r % 17 == 3 ? 0 : 1);
    const bool nn = nulls && r % 13 == 5;
    name.push_back(nn ? "" : kNames5[slab::counter_hash(32, r) % 5]);
    namev.push_back(nn ? 0 : 1);
    x.push_back(r % 11 == 4 ? std::nan("") : 2 * slab::counter_uniform(33, r) - 1);
    k.push_back(static_cast<std::int64_t>(slab::counter_hash(34, r) % 100));
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::int64("id", id, nulls ? idv : std::vector<std::uint8_t>{}));
  t.add(fr::LocalColumn::string("name", name, nulls ? namev : std::vector<std::uint8_t>{}));
  t.add(fr::LocalColumn::float64("x", x));
  t.add(fr::LocalColumn::int64("k", k));
  return t;
}

struct Ref {
  std::int64_t size = 0, n = 0, kn = 0;
  std::vector<double> xs;
  double sum = 0, mn = INFINITY, mx = -INFINITY, first = NAN, last = NAN;
  std::set<double> xd;
  std::int64_t ksum = 0, kmin = INT64_MAX, kmax = INT64_MIN, kfirst = 0, klast = 0;
  std::set<std::int64_t> kd;
};

void expect_close(double got, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

void check_against_reference(Engine& e, const fr::LocalTable& all, const fr::Frame& result, bool dropna) {
  // key: (id null?, id, name null?, name): std::map orders like pandas (nulls last).
  using Key = std::tuple<int, std::int64_t, int, std::string>;
  std::map<Key, Ref> ref;
  const auto& id = all["id"];
  const auto& name = all["name"];
  const auto& x = all["x"];
  const auto& k = all["k"];
  for (std::size_t r = 0; r < id.size(); ++r) {
    if (dropna && (id.is_null(r) || name.is_null(r))) continue;
    Key key{id.is_null(r), id.is_null(r) ? 0 : id.ints[r], name.is_null(r), name.is_null(r) ? "" : name.strings[r]};
    Ref& g = ref[key];
    ++g.size;
    const double v = x.floats[r];
    if (!std::isnan(v)) {
      if (g.n == 0) g.first = v;
      g.last = v;
      ++g.n;
      g.xs.push_back(v);
      g.sum += v;
      g.mn = std::min(g.mn, v);
      g.mx = std::max(g.mx, v);
      g.xd.insert(v);
    }
    const std::int64_t kv = k.ints[r];
    if (g.kn == 0) g.kfirst = kv;
    g.klast = kv;
    ++g.kn;
    g.ksum += kv;
    g.kmin = std::min(g.kmin, kv);
    g.kmax = std::max(g.kmax, kv);
    g.kd.insert(kv);
  }
  fr::LocalTable out = result.gather_all();
  ASSERT_EQ(out.nrows(), static_cast<std::int64_t>(ref.size()));  // after the collective
  std::size_t i = 0;
  for (const auto& [key, g] : ref) {
    const std::string at = "group " + std::to_string(i);
    EXPECT_EQ(out["id"].is_null(i), std::get<0>(key) == 1) << at;
    if (!std::get<0>(key)) EXPECT_EQ(out["id"].ints[i], std::get<1>(key)) << at;
    EXPECT_EQ(out["name"].is_null(i), std::get<2>(key) == 1) << at;
    if (!std::get<2>(key)) EXPECT_EQ(out["name"].strings[i], std::get<3>(key)) << at;
    EXPECT_EQ(out["size"].ints[i], g.size) << at;
    EXPECT_EQ(out["x_count"].ints[i], g.n) << at;
    expect_close(out["x_sum"].floats[i], g.sum, at + " sum");
    expect_close(out["x_mean"].floats[i], g.n ? g.sum / g.n : NAN, at + " mean");
    double m = g.n ? g.sum / g.n : 0, m2 = 0;
    for (double v : g.xs) m2 += (v - m) * (v - m);
    const double var = g.n > 1 ? m2 / (g.n - 1) : NAN;
    if (std::isnan(var))
      EXPECT_TRUE(std::isnan(out["x_var"].floats[i])) << at;
    else
      EXPECT_NEAR(out["x_var"].floats[i], var, 1e-10 * std::max(1.0, std::fabs(var))) << at;
    if (!std::isnan(var)) EXPECT_NEAR(out["x_std"].floats[i], std::sqrt(var), 1e-10) << at;
    expect_close(out["x_min"].floats[i], g.n ? g.mn : NAN, at + " min");
    expect_close(out["x_max"].floats[i], g.n ? g.mx : NAN, at + " max");
    expect_close(out["x_first"].floats[i], g.first, at + " first");
    expect_close(out["x_last"].floats[i], g.last, at + " last");
    EXPECT_EQ(out["x_nunique"].ints[i], static_cast<std::int64_t>(g.xd.size())) << at;
    EXPECT_EQ(out["k_sum"].ints[i], g.ksum) << at;
    EXPECT_EQ(out["k_min"].ints[i], g.kmin) << at;
    EXPECT_EQ(out["k_max"].ints[i], g.kmax) << at;
    EXPECT_EQ(out["k_first"].ints[i], g.kfirst) << at;
    EXPECT_EQ(out["k_last"].ints[i], g.klast) << at;
    EXPECT_EQ(out["k_nunique"].ints[i], static_cast<std::int64_t>(g.kd.size())) << at;
    ++i;
  }
}

const std::vector<fr::Aggregation> kAllAggs = {
    {"x",
     {fr::AggOp::sum, fr::AggOp::mean, fr::AggOp::count, fr::AggOp::size, fr::AggOp::min, fr::AggOp::max,
      fr::AggOp::std, fr::AggOp::var, fr::AggOp::first, fr::AggOp::last, fr::AggOp::nunique}},
    {"k", {fr::AggOp::sum, fr::AggOp::min, fr::AggOp::max, fr::AggOp::first, fr::AggOp::last, fr::AggOp::nunique}}};

void run_case(std::int64_t n, std::int64_t nid, bool nulls, bool dropna, bool only_rank0, std::int64_t part_rows) {
  Engine e;
  fr::LocalTable t = make_input(e.comm(), n, nid, nulls, only_rank0);
  fr::Frame f = fr::Frame::from_local_table(e, t, part_rows);
  fr::GroupbyOptions opt;
  opt.dropna = dropna;
  fr::Frame g = fr::groupby(f, {"id", "name"}, kAllAggs, opt);
  check_against_reference(e, f.gather_all(), g, dropna);
}

}  // namespace

TEST(Groupby, AllAggregationsMatchReference) { run_case(5000, 40, false, true, false, 700); }
TEST(Groupby, NullKeysDropped) { run_case(3000, 10, true, true, false, 500); }
TEST(Groupby, NullKeysKeptAsGroups) { run_case(3000, 10, true, false, false, 500); }
TEST(Groupby, RanksWithNoRows) { run_case(2000, 10, false, true, true, 300); }
TEST(Groupby, EmptyFrame) { run_case(0, 10, false, true, false, 0); }
TEST(Groupby, SingleGroup) { run_case(1000, 1, false, true, false, 100); }
TEST(Groupby, AllDistinctKeys) { run_case(3000, 1'000'000'000, false, true, false, 400); }

TEST(Groupby, SingleInt64KeyUnsorted) {
  Engine e;
  fr::LocalTable t = make_input(e.comm(), 4000, 300, false);
  fr::Frame f = fr::Frame::from_local_table(e, t, 500);
  fr::GroupbyOptions opt;
  opt.sort = false;
  fr::Frame g = fr::groupby(f, {"id"}, {{"k", {fr::AggOp::sum, fr::AggOp::size}}}, opt);
  fr::LocalTable all = f.gather_all();
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> ref;
  for (std::size_t r = 0; r < all["id"].size(); ++r) {
    ref[all["id"].ints[r]].first += all["k"].ints[r];
    ref[all["id"].ints[r]].second += 1;
  }
  fr::LocalTable out = g.gather_all();
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> got;
  for (std::int64_t i = 0; i < out.nrows(); ++i) got[out["id"].ints[i]] = {out["k_sum"].ints[i], out["size"].ints[i]};
  EXPECT_EQ(got, ref);
}

TEST(Groupby, FloatAndBoolKeys) {
  Engine e;
  auto [b, en] = ops_test::my_range(600, e.comm().rank(), e.comm().size());
  std::vector<double> fk;
  std::vector<std::uint8_t> bk;
  std::vector<double> v;
  for (std::int64_t r = b; r < en; ++r) {
    fk.push_back(r % 7 == 0 ? std::nan("") : (r % 5 == 0 ? -0.0 : static_cast<double>(r % 4) - 1.5));
    bk.push_back(r % 3 == 0);
    v.push_back(static_cast<double>(r));
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::float64("f", fk)).add(fr::LocalColumn::boolean("b", bk)).add(fr::LocalColumn::float64("v", v));
  fr::Frame f = fr::Frame::from_local_table(e, t, 100);
  for (bool dropna : {true, false}) {
    fr::GroupbyOptions opt;
    opt.dropna = dropna;
    fr::LocalTable out = fr::groupby(f, {"f", "b"}, {{"v", {fr::AggOp::size, fr::AggOp::sum}}}, opt).gather_all();
    // reference: (isnan, value, b) ordered like pandas (NaN last)
    std::map<std::tuple<int, double, int>, std::pair<std::int64_t, double>> ref;
    for (std::int64_t r = 0; r < 600; ++r) {
      const double x = r % 7 == 0 ? std::nan("") : (r % 5 == 0 ? 0.0 : static_cast<double>(r % 4) - 1.5);
      if (dropna && std::isnan(x)) continue;
      auto& g = ref[{std::isnan(x), std::isnan(x) ? 0 : x, r % 3 == 0}];
      g.first += 1;
      g.second += static_cast<double>(r);
    }
    EXPECT_EQ(out.nrows(), static_cast<std::int64_t>(ref.size()));
    if (out.nrows() != static_cast<std::int64_t>(ref.size())) continue;  // no ASSERT: a collective follows
    std::size_t i = 0;
    for (const auto& [key, g] : ref) {
      EXPECT_EQ(std::isnan(out["f"].floats[i]), std::get<0>(key) == 1);
      if (!std::get<0>(key)) EXPECT_EQ(out["f"].floats[i], std::get<1>(key));
      EXPECT_EQ(out["b"].bools[i], std::get<2>(key));
      EXPECT_EQ(out["size"].ints[i], g.first);
      EXPECT_DOUBLE_EQ(out["v_sum"].floats[i], g.second);
      ++i;
    }
  }
}

TEST(Groupby, SkewedKeyShufflesPartialsNotRows) {
  Engine e;
  const std::int64_t n = 20000;
  auto [b, en] = ops_test::my_range(n, e.comm().rank(), e.comm().size());
  std::vector<std::int64_t> id;
  std::vector<double> x;
  for (std::int64_t r = b; r < en; ++r) {
    id.push_back(r % 2 == 0 ? 7 : 1000 + static_cast<std::int64_t>(slab::counter_hash(40, r) % 100));
    x.push_back(1.0);
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::int64("id", id)).add(fr::LocalColumn::float64("x", x));
  fr::Frame f = fr::Frame::from_local_table(e, t, 1000);
  fr::GroupbyStats st;
  fr::GroupbyOptions opt;
  opt.stats = &st;
  fr::LocalTable out = fr::groupby(f, {"id"}, {{"x", {fr::AggOp::sum}}}, opt).gather_all();
  // At most 101 groups exist, so a rank receives at most 101 records from each rank, never ~n/2 rows.
  const std::int64_t max_recv = e.comm().allreduce(st.records_received, slab::ReduceOp::max);
  EXPECT_LE(max_recv, 101 * e.comm().size());
  EXPECT_LE(st.records_sent, 101);
  ASSERT_GE(out.nrows(), 1);
  EXPECT_EQ(out["id"].ints[0], 7);
  EXPECT_DOUBLE_EQ(out["x_sum"].floats[0], n / 2.0);
}

TEST(Groupby, HalfTheRowsOnOneKeyStaysBalanced) {
  // Key 7 holds half of all rows, the rest spread over 2000 keys: every rank must receive about its share of
  // the partial records (range or hash routed), not the hot key's rows.
  Engine e;
  const std::int64_t n = 40000;
  const int p = e.comm().size();
  auto [b, en] = ops_test::my_range(n, e.comm().rank(), p);
  std::vector<std::int64_t> id;
  std::vector<double> x;
  for (std::int64_t r = b; r < en; ++r) {
    id.push_back(r % 2 == 0 ? 7 : 10 + static_cast<std::int64_t>(slab::counter_hash(41, r) % 2000));
    x.push_back(static_cast<double>(r % 5));
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::int64("id", id)).add(fr::LocalColumn::float64("x", x));
  fr::Frame f = fr::Frame::from_local_table(e, t, 1500);
  for (bool sort : {true, false}) {
    fr::GroupbyStats st;
    fr::GroupbyOptions opt;
    opt.sort = sort;
    opt.stats = &st;
    fr::LocalTable out = fr::groupby(f, {"id"}, {{"x", {fr::AggOp::sum, fr::AggOp::size}}}, opt).gather_all();
    const std::int64_t total = e.comm().allreduce(st.records_received, slab::ReduceOp::sum);
    const std::int64_t most = e.comm().allreduce(st.records_received, slab::ReduceOp::max);
    const std::int64_t rows_max = e.comm().allreduce(st.groups_out, slab::ReduceOp::max);
    EXPECT_EQ(total, e.comm().allreduce(st.records_sent, slab::ReduceOp::sum));
    EXPECT_LE(total, 2001 * p);                            // one record per (rank, group) at most
    EXPECT_LE(most, total / p + total / (2 * p) + p + 8);  // within 1.5x of a fair share
    EXPECT_LE(rows_max, 2001 / p + 2001 / (2 * p) + 8);
    std::int64_t hot = -1, hot_sum = -1;
    for (std::int64_t i = 0; i < out.nrows(); ++i)
      if (out["id"].ints[i] == 7)
        hot = out["size"].ints[i], hot_sum = static_cast<std::int64_t>(out["x_sum"].floats[i]);
    EXPECT_EQ(hot, n / 2) << "sort=" << sort;
    std::int64_t want = 0;
    for (std::int64_t r = 0; r < n; r += 2) want += r % 5;
    EXPECT_EQ(hot_sum, want);
  }
}

TEST(Groupby, AllDistinctKeysOutOfCore) {
  // A 256 KiB memory limit: the partial state (~11,000 groups of ~140 bytes) cannot stay in memory, so it is
  // written out in spillable chunks, shuffled per partition and combined one partition at a time. Neither the
  // input nor the result fits either, so the reference is built from the generator and each rank checks its
  // result partitions one at a time.
  Engine e(256 << 10, 1ull << 30);
  const std::int64_t n = 11000, nid = 1'000'000'000;
  fr::LocalTable t = make_input(e.comm(), n, nid, false);
  fr::Frame f = fr::Frame::from_local_table(e, t, 400);
  const std::vector<fr::Aggregation> aggs = {
      {"x", {fr::AggOp::sum, fr::AggOp::count, fr::AggOp::size, fr::AggOp::min, fr::AggOp::std, fr::AggOp::first}},
      {"k", {fr::AggOp::max, fr::AggOp::last}}};
  using Key = std::pair<std::int64_t, std::string>;
  std::map<Key, Ref> ref;
  for (std::int64_t r = 0; r < n; ++r) {  // make_input's rows, without nulls
    Ref& g =
        ref[{static_cast<std::int64_t>(slab::counter_hash(31, r) % nid) - 2, kNames5[slab::counter_hash(32, r) % 5]}];
    ++g.size;
    const double v = r % 11 == 4 ? std::nan("") : 2 * slab::counter_uniform(33, r) - 1;
    if (!std::isnan(v)) {
      g.xs.push_back(v), g.sum += v, g.mn = std::min(g.mn, v);
      if (std::isnan(g.first)) g.first = v;
    }
    const auto k = static_cast<std::int64_t>(slab::counter_hash(34, r) % 100);
    g.kmax = std::max(g.kmax, k);
    g.klast = k;
  }
  for (bool sort : {true, false}) {
    fr::GroupbyStats st;
    fr::GroupbyOptions opt;
    opt.sort = sort;
    opt.stats = &st;
    fr::Frame g = fr::groupby(f, {"id", "name"}, aggs, opt);
    g.persist();
    EXPECT_GT(e.comm().allreduce(st.records_written, slab::ReduceOp::sum), 0) << "not written out";
    const fr::Schema& s = g.schema();
    const auto& dict = *s.dictionary(s.index_of("name"));
    std::int64_t rows = 0, bad = 0;
    std::optional<Key> prev;
    for (const auto& part : g.partitions()) {
      auto [pin, view] = fr::view_chunk(part);
      const fr::BatchView& b = view;  // a plain reference: lambdas cannot capture structured bindings in clang 14
      for (std::int64_t i = 0; i < b.nrows(); ++i, ++rows) {
        const Key key{b.column<std::int64_t>(s.index_of("id"))[i], dict[b.column<std::int32_t>(s.index_of("name"))[i]]};
        if (sort && prev) EXPECT_LT(*prev, key) << "row " << rows;
        prev = key;
        auto it = ref.find(key);
        if (it == ref.end()) {
          ++bad;
          continue;
        }
        const Ref& want = it->second;
        auto col_f = [&](const char* c) { return b.column<double>(s.index_of(c))[i]; };
        auto col_i = [&](const char* c) { return b.column<std::int64_t>(s.index_of(c))[i]; };
        EXPECT_EQ(col_i("size"), want.size);
        EXPECT_EQ(col_i("x_count"), static_cast<std::int64_t>(want.xs.size()));
        expect_close(col_f("x_sum"), want.sum, "x_sum");
        expect_close(col_f("x_min"), want.xs.empty() ? NAN : want.mn, "x_min");
        expect_close(col_f("x_first"), want.first, "x_first");
        double mean = 0, m2 = 0;
        for (double v : want.xs) mean += v / static_cast<double>(want.xs.size());
        for (double v : want.xs) m2 += (v - mean) * (v - mean);
        expect_close(col_f("x_std"), want.xs.size() > 1 ? std::sqrt(m2 / (want.xs.size() - 1.0)) : NAN, "x_std");
        EXPECT_EQ(col_i("k_max"), want.kmax);
        EXPECT_EQ(col_i("k_last"), want.klast);
      }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(e.comm().allreduce(rows, slab::ReduceOp::sum), static_cast<std::int64_t>(ref.size()));
  }
}

TEST(Groupby, ErrorsOnEveryRank) {
  Engine e;
  fr::LocalTable t = make_input(e.comm(), 100, 5, false);
  fr::Frame f = fr::Frame::from_local_table(e, t, 0);
  EXPECT_THROW((void)fr::groupby(f, {"nope"}, {{"x", {fr::AggOp::sum}}}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::groupby(f, {"id"}, {{"nope", {fr::AggOp::sum}}}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::groupby(f, {"id"}, {{"name", {fr::AggOp::mean}}}), slab::TypeError);
  EXPECT_THROW((void)fr::groupby(f, {}, {{"x", {fr::AggOp::sum}}}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::parse_agg_op("mode"), slab::InvalidArgument);
  EXPECT_THROW((void)fr::parse_agg_op("q1.5"), slab::InvalidArgument);
  EXPECT_THROW((void)fr::parse_agg_op("quantile(x)"), slab::InvalidArgument);
  double q = 0;
  EXPECT_EQ(fr::parse_agg_op("median"), fr::AggOp::median);
  EXPECT_EQ(fr::parse_agg_op("quantile(0.25)", q), fr::AggOp::quantile);
  EXPECT_EQ(q, 0.25);
  EXPECT_EQ(fr::parse_agg_op("q0.9", q), fr::AggOp::quantile);
  EXPECT_EQ(q, 0.9);
  EXPECT_EQ(fr::parse_agg_op("quantile", q), fr::AggOp::quantile);
  EXPECT_EQ(q, 0.5);
  // still usable afterwards (no rank left behind in a collective)
  fr::LocalTable out = fr::groupby(f, {"id"}, {{"x", {fr::AggOp::count}}}).gather_all();
  EXPECT_EQ(out.nrows(), 5);
}
