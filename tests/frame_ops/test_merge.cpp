// merge against a nested-loop reference on the gathered inputs, every join kind, both strategies.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "ops_test_util.hpp"
#include "slab/frame/merge.hpp"

namespace fr = slab::frame;
using ops_test::Engine;

namespace {

/// left: (k int64, s string, v float64, w int64); right: (k, s, v, u). Keys have duplicates on both sides and
/// keys present on one side only; a few null keys.
fr::LocalTable make_side(slab::Comm& comm, std::int64_t n, std::uint64_t stream, bool right, std::int64_t nkeys,
                         bool only_rank0 = false) {
  auto [b, e] = ops_test::my_range(n, comm.rank(), comm.size());
  if (only_rank0) {
    b = comm.rank() == 0 ? 0 : n;
    e = n;
  }
  std::vector<std::int64_t> k, w;
  std::vector<std::uint8_t> kv;
  std::vector<std::string> s;
  std::vector<double> v;
  const char* names[] = {"p", "q", "r"};
  for (std::int64_t r = b; r < e; ++r) {
    k.push_back(static_cast<std::int64_t>(slab::counter_hash(stream, r) % nkeys) + (right ? 3 : 0));
    kv.push_back(r % 19 == 7 ? 0 : 1);
    s.push_back(names[slab::counter_hash(stream + 1, r) % (right ? 3 : 2)]);
    v.push_back(slab::counter_uniform(stream + 2, r));
    w.push_back(r);
  }
  fr::LocalTable t;
  t.add(fr::LocalColumn::int64("k", k, kv)).add(fr::LocalColumn::string("s", s)).add(fr::LocalColumn::float64("v", v));
  t.add(fr::LocalColumn::int64(right ? "u" : "w", w));
  return t;
}

using Row = std::vector<std::string>;

std::vector<Row> rows_of(const fr::LocalTable& t) {
  std::vector<Row> out(t.nrows());
  for (std::int64_t i = 0; i < t.nrows(); ++i)
    for (const auto& c : t.columns) out[i].push_back(ops_test::cell(c, i));
  std::sort(out.begin(), out.end());
  return out;
}

/// Nested loops; on = {"k"} or {"k","s"}. Output columns: keys, left rest, right rest (as merge).
std::vector<Row> reference(const fr::LocalTable& l, const fr::LocalTable& r, const std::vector<std::string>& on,
                           fr::JoinKind how) {
  auto keyrow = [&](const fr::LocalTable& t, std::size_t i, bool& null) {
    Row k;
    null = false;
    for (const auto& n : on) {
      null |= t[n].is_null(i);
      k.push_back(ops_test::cell(t[n], i));
    }
    return k;
  };
  auto rest = [&](const fr::LocalTable& t, std::int64_t i, Row& out) {
    for (const auto& c : t.columns)
      if (std::find(on.begin(), on.end(), c.name) == on.end()) out.push_back(i < 0 ? "null" : ops_test::cell(c, i));
  };
  // The right side's key rows, made once (the nested loop compares them nl * nr times).
  std::vector<Row> rkeys(r.nrows());
  std::vector<char> rnull(r.nrows(), 0);
  for (std::int64_t j = 0; j < r.nrows(); ++j) {
    bool rn = false;
    rkeys[j] = keyrow(r, j, rn);
    rnull[j] = rn;
  }
  std::vector<Row> out;
  std::vector<char> rmatched(r.nrows(), 0);
  for (std::int64_t i = 0; i < l.nrows(); ++i) {
    bool ln = false;
    const Row lk = keyrow(l, i, ln);
    bool any = false;
    for (std::int64_t j = 0; j < r.nrows() && !ln; ++j) {
      if (rnull[j] || rkeys[j] != lk) continue;
      any = true;
      rmatched[j] = 1;
      Row row = lk;
      rest(l, i, row);
      rest(r, j, row);
      out.push_back(row);
    }
    if (!any && (how == fr::JoinKind::left || how == fr::JoinKind::outer)) {
      Row row = lk;
      rest(l, i, row);
      rest(r, -1, row);
      out.push_back(row);
    }
  }
  if (how == fr::JoinKind::right || how == fr::JoinKind::outer)
    for (std::int64_t j = 0; j < r.nrows(); ++j) {
      if (rmatched[j]) continue;
      Row row = rkeys[j];
      rest(l, -1, row);
      rest(r, j, row);
      out.push_back(row);
    }
  std::sort(out.begin(), out.end());
  return out;
}

void run_merge(std::vector<std::string> on, fr::JoinKind how, fr::JoinStrategy strategy, bool only_rank0 = false,
               std::int64_t nl = 400, std::int64_t nr = 150) {
  Engine e;
  fr::Frame l = fr::Frame::from_local_table(e, make_side(e.comm(), nl, 50, false, 40, only_rank0), 70);
  fr::Frame r = fr::Frame::from_local_table(e, make_side(e.comm(), nr, 60, true, 40), 40);
  fr::MergeOptions opt;
  opt.how = how;
  opt.strategy = strategy;
  fr::Frame j = fr::merge(l, r, on, opt);
  const fr::LocalTable got = j.gather_all();
  const auto want = reference(l.gather_all(), r.gather_all(), on, how);
  const auto names = got.names();
  std::vector<std::string> expect_names = on;
  for (auto n : {"s", "v", "w", "s", "v", "u"}) expect_names.push_back(n);
  if (on.size() == 2) {
    expect_names = {"k", "s", "v_x", "w", "v_y", "u"};
  } else {
    expect_names = {"k", "s_x", "v_x", "w", "s_y", "v_y", "u"};
  }
  EXPECT_EQ(names, expect_names);
  const auto rows = rows_of(got);
  EXPECT_EQ(rows.size(), want.size());
  EXPECT_TRUE(rows == want) << "join result differs from the nested-loop reference";
}

}  // namespace

class MergeKinds : public ::testing::TestWithParam<std::tuple<fr::JoinKind, fr::JoinStrategy>> {};

TEST_P(MergeKinds, OneKeyMatchesReference) { run_merge({"k"}, std::get<0>(GetParam()), std::get<1>(GetParam())); }
TEST_P(MergeKinds, TwoKeysMatchReference) { run_merge({"k", "s"}, std::get<0>(GetParam()), std::get<1>(GetParam())); }
TEST_P(MergeKinds, RanksWithNoRows) { run_merge({"k"}, std::get<0>(GetParam()), std::get<1>(GetParam()), true); }
TEST_P(MergeKinds, EmptyLeft) { run_merge({"k"}, std::get<0>(GetParam()), std::get<1>(GetParam()), false, 0, 100); }

INSTANTIATE_TEST_SUITE_P(All, MergeKinds,
                         ::testing::Combine(::testing::Values(fr::JoinKind::inner, fr::JoinKind::left,
                                                              fr::JoinKind::right, fr::JoinKind::outer),
                                            ::testing::Values(fr::JoinStrategy::broadcast, fr::JoinStrategy::hash)));

TEST(Merge, SkewedKeyBroadcastKeepsProbeInPlace) {
  Engine e;
  const std::int64_t n = 20000;
  auto [b, en] = ops_test::my_range(n, e.comm().rank(), e.comm().size());
  std::vector<std::int64_t> k;
  std::vector<double> v;
  for (std::int64_t r = b; r < en; ++r) {
    k.push_back(r % 2 == 0 ? 5 : r);
    v.push_back(1.0);
  }
  fr::LocalTable lt;
  lt.add(fr::LocalColumn::int64("k", k)).add(fr::LocalColumn::float64("v", v));
  auto [rb, re] = ops_test::my_range(10, e.comm().rank(), e.comm().size());
  std::vector<std::int64_t> rk;
  std::vector<double> rv;
  for (std::int64_t r = rb; r < re; ++r) {
    rk.push_back(r);
    rv.push_back(2.0);
  }
  fr::LocalTable rt;
  rt.add(fr::LocalColumn::int64("k", rk)).add(fr::LocalColumn::float64("v2", rv));
  fr::Frame l = fr::Frame::from_local_table(e, lt, 1000);
  fr::Frame r = fr::Frame::from_local_table(e, rt, 0);
  fr::MergeStats st;
  fr::MergeOptions opt;
  opt.stats = &st;
  fr::Frame j = fr::merge(l, r, {"k"}, opt);
  const std::int64_t rows = j.len();
  EXPECT_TRUE(st.broadcast);
  EXPECT_EQ(st.probe_rows, en - b);  // the skewed side never moved
  // matches: the n/2 rows with key 5, plus odd r < 10 (1, 3, 5, 7, 9)
  EXPECT_EQ(rows, n / 2 + 5);
}

TEST(Merge, ErrorsOnEveryRank) {
  Engine e;
  fr::Frame l = fr::Frame::from_local_table(e, make_side(e.comm(), 50, 50, false, 10), 0);
  fr::Frame r = fr::Frame::from_local_table(e, make_side(e.comm(), 50, 60, true, 10), 0);
  EXPECT_THROW((void)fr::merge(l, r, {"nope"}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::merge(l, r, {"w"}), slab::InvalidArgument);  // only on the left
  EXPECT_THROW((void)fr::merge(l, r, {}), slab::InvalidArgument);
  fr::LocalTable t2;
  auto [b, en] = ops_test::my_range(10, e.comm().rank(), e.comm().size());
  t2.add(fr::LocalColumn::float64("k", std::vector<double>(en - b, 1.0)));
  fr::Frame r2 = fr::Frame::from_local_table(e, t2, 0);
  EXPECT_THROW((void)fr::merge(l, r2, {"k"}), slab::TypeError);
  EXPECT_GE(fr::merge(l, r, {"k"}).len(), 0);  // still usable
}
