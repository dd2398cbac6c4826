// The groupby kernels' reference instantiation against slab::frame::groupby at 1 rank: the same groups in the
// same (key) order, and every aggregation's result with the equality contract: bitwise for counts, sizes,
// nunique, integer sums, min, max, first and last, for every float result of a group of at most kGroupPiece
// rows (one sequential fold: the host's own), and for float sums and means of exactly summable data; within a
// stated tolerance for other float sums, means, std and var. combine() against the host's combine order too.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "frame/kernels/groupby.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/key_words.hpp"
#include "kernel_frames.hpp"
#include "slab/frame/groupby.hpp"

namespace {

using namespace kernel_test;
using slab::ElementType;
using slab::frame::AggOp;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;
using slab::frame::detail::KeyEncoder;

static_assert(static_cast<int>(fk::AggKind::nunique) == static_cast<int>(AggOp::nunique) &&
              static_cast<int>(fk::AggKind::first) == static_cast<int>(AggOp::first));

/// The encoder groupby() builds for these keys.
KeyEncoder groupby_encoder(const HostFrame& f, const std::vector<std::string>& keys, bool dropna) {
  KeyEncoder enc;
  enc.dropna = dropna;
  for (const auto& k : keys) {
    const std::size_t c = f.schema().index_of(k);
    const ElementType t = f.schema().type(c);
    enc.cols.push_back(c);
    enc.types.push_back(t);
    enc.card.push_back(t == ElementType::boolean ? 2
                       : t == ElementType::string
                           ? std::max<std::uint64_t>(1, f.schema().dictionary(c) ? f.schema().dictionary(c)->size() : 0)
                           : 0);
  }
  enc.init();
  if (enc.nwords == 1 && !enc.static_ranges()) {
    enc.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(enc.nwords, ~0ull), maxs(enc.nwords, 0);
    enc.update_ranges(f.view, mins, maxs);
    enc.set_ranges(mins, maxs);
  }
  return enc;
}

/// Per-group state arrays of capacity n for the states `ops` need.
struct StateArrays {
  std::vector<std::int64_t> count, nunique;
  std::vector<std::uint64_t> sum, min, max, fo, fv, lo, lv;
  std::vector<double> mean, m2;
  fk::AggStates states(std::int64_t n, const std::vector<AggOp>& ops) {
    const auto u = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
    fk::AggStates s;
    count.assign(u, -1);
    s.count = count.data();
    for (AggOp op : ops) {
      if (op == AggOp::sum || op == AggOp::mean) s.sum = (sum.resize(u), sum.data());
      if (op == AggOp::std || op == AggOp::var) {
        s.mean = (mean.resize(u), mean.data());
        s.m2 = (m2.resize(u), m2.data());
      }
      if (op == AggOp::min) s.min = (min.resize(u), min.data());
      if (op == AggOp::max) s.max = (max.resize(u), max.data());
      if (op == AggOp::first) {
        s.first_order = (fo.resize(u), fo.data());
        s.first_value = (fv.resize(u), fv.data());
      }
      if (op == AggOp::last) {
        s.last_order = (lo.resize(u), lo.data());
        s.last_value = (lv.resize(u), lv.data());
      }
      if (op == AggOp::nunique) s.nunique = (nunique.resize(u), nunique.data());
    }
    return s;
  }
};

/// Compares one result column; `exact` marks data whose float sums are exact in any order.
void expect_column(const slab::frame::LocalColumn& host, AggOp op, ElementType vtype, const std::vector<std::byte>& out,
                   const std::vector<std::uint8_t>& valid, const std::vector<std::int64_t>& sizes, bool exact,
                   const slab::frame::Dictionary& dict, const std::string& what) {
  const std::size_t G = sizes.size();
  const bool nullable = op == AggOp::min || op == AggOp::max || op == AggOp::first || op == AggOp::last;
  std::size_t bad = 0;
  for (std::size_t g = 0; g < G && bad < 5; ++g) {
    const bool host_valid = host.valid.empty() || host.valid[g];
    if (nullable && vtype != ElementType::float64 && host_valid != static_cast<bool>(valid[g])) {
      ADD_FAILURE() << what << " group " << g << ": validity " << int(valid[g]) << ", host " << host_valid;
      ++bad;
      continue;
    }
    if (!host_valid) continue;
    switch (host.type) {
      case ElementType::float64: {
        double d;
        std::memcpy(&d, out.data() + 8 * g, 8);
        const double e = host.floats[g];
        const bool piecewise = sizes[g] > fk::kGroupPiece;
        // An int64 mean whose values span 2^64 / n or more is Welford's (agg_hd.hpp's int64_mean): the host's
        // one pass and the device's pieces round it differently.
        const bool int_mean = op == AggOp::mean && vtype == ElementType::int64;
        const bool bitwise =
            !piecewise || (exact && (op == AggOp::sum || (op == AggOp::mean && !int_mean))) || nullable;
        if (bitwise) {
          if (!same_bits(d, e)) {
            ADD_FAILURE() << what << " group " << g << " (" << sizes[g] << " rows): " << d << " != host " << e;
            ++bad;
          }
        } else if (!(std::isnan(d) && std::isnan(e))) {
          // Rounding of a different summation order: n eps times the values' scale (|y| < 1e10).
          const double scale = op == AggOp::sum ? static_cast<double>(sizes[g]) * 1e10 : std::max(1.0, std::fabs(e));
          // std/var: relative 1e-12 (Chan over pieces against one Welford pass).
          const double tol = op == AggOp::sum || op == AggOp::mean
                                 ? 8.0 * static_cast<double>(sizes[g]) * 2.2e-16 *
                                       (op == AggOp::mean ? (int_mean ? 9.3e18 : 1e10) : scale)
                                 : 1e-12 * scale;
          if (!(std::fabs(d - e) <= tol)) {
            ADD_FAILURE() << what << " group " << g << ": " << d << " vs host " << e << " (tolerance " << tol << ")";
            ++bad;
          }
        }
        break;
      }
      case ElementType::string: {
        std::int32_t c;
        std::memcpy(&c, out.data() + 4 * g, 4);
        if ((*dict)[static_cast<std::size_t>(c)] != host.strings[g]) {
          ADD_FAILURE() << what << " group " << g << ": " << (*dict)[static_cast<std::size_t>(c)]
                        << " != " << host.strings[g];
          ++bad;
        }
        break;
      }
      case ElementType::boolean:
        if (static_cast<std::uint8_t>(out[g]) != host.bools[g]) {
          ADD_FAILURE() << what << " group " << g;
          ++bad;
        }
        break;
      default: {
        std::int64_t v;
        std::memcpy(&v, out.data() + 8 * g, 8);
        if (v != host.ints[g]) {
          ADD_FAILURE() << what << " group " << g << ": " << v << " != host " << host.ints[g];
          ++bad;
        }
      }
    }
  }
}

struct Case {
  std::vector<std::string> keys;
  bool dropna;
};

void check_groupby(slab::Engine& engine, Profile p, std::int64_t n, const Case& c) {
  const TestBatch t = make_batch(n, p, 31);
  const HostFrame f = host_frame(engine, t);
  std::vector<slab::frame::Aggregation> aggs;
  const std::vector<AggOp> all{AggOp::sum, AggOp::mean, AggOp::count, AggOp::min,  AggOp::max,
                               AggOp::std, AggOp::var,  AggOp::first, AggOp::last, AggOp::nunique};
  for (const char* v : {"x", "y", "z"}) aggs.push_back({v, all});
  aggs[0].ops.insert(aggs[0].ops.begin() + 3, AggOp::size);  // size once: it names its column "size"
  const bool s_is_key = std::find(c.keys.begin(), c.keys.end(), "s") != c.keys.end();
  if (!s_is_key)
    aggs.push_back({"s", {AggOp::min, AggOp::max, AggOp::first, AggOp::last, AggOp::count, AggOp::nunique}});
  slab::frame::GroupbyOptions options;
  options.dropna = c.dropna;
  const slab::frame::Frame result = slab::frame::groupby(f.frame, c.keys, aggs, options);
  const slab::frame::LocalTable host = result.gather_all();

  // The kernels: encode, aggregate, finalize.
  const KeyEncoder enc = groupby_encoder(f, c.keys, c.dropna);
  const fk::KeyLayout layout = fk::layout_of(enc);
  const int W = layout.width();
  std::vector<fk::KeyColumn> keys;
  for (auto col : enc.cols) keys.push_back({f.column(col), nullptr});
  std::vector<std::vector<std::uint64_t>> words(W, std::vector<std::uint64_t>(static_cast<std::size_t>(n)));
  std::vector<std::uint64_t*> wp;
  for (auto& w : words) wp.push_back(w.data());
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(n));
  CountingScratch scratch;
  fk::KeyKernels<Reference>::encode(scratch.exec(), keys.data(), layout, n, wp.data(), keep.data());
  int bits[fk::kMaxKeyWords];
  fk::key_bits(enc, bits);
  std::vector<StateArrays> arrays(aggs.size());
  std::vector<fk::AggColumn> cols;
  for (std::size_t a = 0; a < aggs.size(); ++a)
    cols.push_back({f.column(f.schema().index_of(aggs[a].column)), arrays[a].states(n, aggs[a].ops)});
  std::vector<std::vector<std::uint64_t>> gkeys(W, std::vector<std::uint64_t>(std::max<std::int64_t>(n, 1)));
  std::vector<std::uint64_t*> gk;
  for (auto& w : gkeys) gk.push_back(w.data());
  std::vector<std::int64_t> size(std::max<std::int64_t>(n, 1));
  fk::GroupsOut groups;
  groups.keys = gk.data();
  groups.size = size.data();
  std::vector<const std::uint64_t*> cw(wp.begin(), wp.end());
  const std::int64_t G = fk::GroupbyKernels<Reference>::aggregate(
      scratch.exec(), cw.data(), W, bits, n, keep.data(), cols.data(), static_cast<int>(cols.size()), 0, groups);
  EXPECT_EQ(scratch.live(), 0u);
  const std::string what = std::string(name(p)) + " n=" + std::to_string(n) + " keys=" + std::to_string(c.keys.size()) +
                           (c.dropna ? " dropna" : "");
  ASSERT_EQ(G, host.nrows()) << what;
  size.resize(static_cast<std::size_t>(G));

  // Group keys: the host result's key columns, encoded alike.
  {
    const std::vector<std::byte> rb = table_batch(host, result.schema());
    KeyEncoder renc = enc;
    for (std::size_t k = 0; k < renc.cols.size(); ++k) renc.cols[k] = k;
    std::vector<std::vector<std::uint64_t>> hw;
    std::vector<std::uint8_t> hk;
    renc.encode(slab::frame::BatchView(std::span<const std::byte>(rb)), hw, hk);
    for (int w = 0; w < W; ++w) {
      gkeys[w].resize(static_cast<std::size_t>(G));
      EXPECT_EQ(gkeys[w], hw[w]) << what << ": group keys, word " << w;
    }
  }
  // Every output column.
  std::size_t oc = c.keys.size();
  for (std::size_t a = 0; a < aggs.size(); ++a) {
    const std::size_t vc = f.schema().index_of(aggs[a].column);
    const ElementType vtype = f.schema().type(vc);
    for (AggOp op : aggs[a].ops) {
      const slab::frame::LocalColumn& hc = host.columns[oc++];
      std::vector<std::byte> out(static_cast<std::size_t>(std::max<std::int64_t>(G, 1)) * 8);
      std::vector<std::uint8_t> valid(out.size(), 9);
      fk::GroupbyKernels<Reference>::finalize(scratch.exec(), static_cast<fk::AggKind>(op), vtype, cols[a].out,
                                              size.data(), G, out.data(), valid.data());
      expect_column(hc, op, vtype, out, valid, size, aggs[a].column == "x", f.schema().dictionary(vc),
                    what + " " + hc.name);
    }
  }
}

std::vector<Case> cases() {
  return {{{"i"}, true},      {{"i"}, false},      {{"f"}, true},      {{"f"}, false},          {{"s"}, true},
          {{"i", "s"}, true}, {{"b", "s"}, false}, {{"t", "i"}, true}, {{"t", "f", "b"}, false}};
}

TEST(KernelGroupby, AggregateIsTheHostGroupby) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(false))
      for (const Case& c : cases()) check_groupby(engine, p, n, c);
}

TEST(KernelGroupby, AggregateIsTheHostGroupbyOnALargeBatch) {
  slab::testing::Engine engine;
  const std::int64_t n = (1 << 20) + 1;
  check_groupby(engine, Profile::skewed, n, {{"i", "s"}, true});
  check_groupby(engine, Profile::one_group, n, {{"i"}, true});
}

TEST(KernelGroupby, CombineMergesRecordsInTheHostsOrder) {
  // Partial records of three "ranks" (one key word, count/sum/mean/m2/min/max/first/last), combined as the
  // host's combine_records would: record by record, in record order, into the identity.
  const std::int64_t nrec = 3000;
  std::vector<std::uint64_t> key(nrec);
  std::vector<std::int64_t> sizes(nrec), count(nrec);
  std::vector<std::uint64_t> sum(nrec), mn(nrec), mx(nrec), fo(nrec), fv(nrec), lo(nrec), lv(nrec);
  std::vector<double> mean(nrec), m2(nrec);
  for (std::int64_t r = 0; r < nrec; ++r) {
    key[r] = h(40, r) % 97;
    count[r] = static_cast<std::int64_t>(h(41, r) % 5);  // some empty partials
    sizes[r] = count[r] + 1;
    const double s = static_cast<double>(h(42, r) % 1000) * 0.37, mu = count[r] ? s / count[r] : 0;
    std::memcpy(&sum[r], &s, 8);
    mean[r] = mu;
    m2[r] = count[r] > 1 ? static_cast<double>(h(43, r) % 100) * 0.11 : 0;
    const double a = -static_cast<double>(h(44, r) % 50), b = static_cast<double>(h(45, r) % 50);
    std::memcpy(&mn[r], count[r] ? &a : &b, 8);
    std::memcpy(&mx[r], &b, 8);
    fo[r] = count[r] ? h(46, r) % 10000 : ~0ull;
    fv[r] = h(47, r);
    lo[r] = count[r] ? h(48, r) % 10000 : 0;
    lv[r] = h(49, r);
  }
  const fk::AggStates in{count.data(), sum.data(), mean.data(), m2.data(), mn.data(), mx.data(),
                         fo.data(),    fv.data(),  lo.data(),   lv.data(), nullptr};
  StateArrays out;
  fk::AggColumn col{{ElementType::float64, nullptr, nullptr},
                    out.states(nrec, {AggOp::sum, AggOp::std, AggOp::min, AggOp::max, AggOp::first, AggOp::last})};
  std::vector<std::uint64_t> gkey(nrec);
  std::vector<std::int64_t> gsize(nrec);
  std::uint64_t* gk[1] = {gkey.data()};
  fk::GroupsOut groups{gk, gsize.data(), nullptr};
  const std::uint64_t* kw[1] = {key.data()};
  CountingScratch scratch;
  const std::int64_t G =
      fk::GroupbyKernels<Reference>::combine(scratch.exec(), kw, 1, nullptr, nrec, sizes.data(), &in, &col, 1, groups);
  // The host's order: groups by key, each folded record by record with ColAgg::combine_t's formulas.
  std::map<std::uint64_t, std::vector<std::int64_t>> by_key;
  for (std::int64_t r = 0; r < nrec; ++r) by_key[key[r]].push_back(r);
  ASSERT_EQ(G, static_cast<std::int64_t>(by_key.size()));
  std::int64_t g = 0;
  for (const auto& [k, recs] : by_key) {
    std::int64_t n = 0, sz = 0;
    double s = 0, mu = 0, q = 0, lo_v = INFINITY, hi_v = -INFINITY;
    std::uint64_t ford = ~0ull, fval = 0, lord = 0, lval = 0;
    for (auto r : recs) {
      const std::int64_t nb = count[r], na = n;
      n += nb;
      sz += sizes[r];
      double rs, rmn, rmx;
      std::memcpy(&rs, &sum[r], 8);
      std::memcpy(&rmn, &mn[r], 8);
      std::memcpy(&rmx, &mx[r], 8);
      s += rs;
      if (nb > 0) {
        if (na == 0) {
          mu = mean[r], q = m2[r];
        } else {
          const double tot = static_cast<double>(na + nb), d = mean[r] - mu;
          mu += d * static_cast<double>(nb) / tot;
          q += m2[r] + d * d * static_cast<double>(na) * static_cast<double>(nb) / tot;
        }
      }
      if (rmn < lo_v) lo_v = rmn;
      if (rmx > hi_v) hi_v = rmx;
      if (nb > 0 && fo[r] < ford) ford = fo[r], fval = fv[r];
      if (nb > 0 && (na == 0 || lo[r] >= lord)) lord = lo[r], lval = lv[r];
    }
    ASSERT_EQ(gkey[g], k);
    EXPECT_EQ(gsize[g], sz);
    EXPECT_EQ(out.count[g], n);
    double got;
    std::memcpy(&got, &out.sum[g], 8);
    EXPECT_TRUE(same_bits(got, s)) << "group " << g;
    EXPECT_TRUE(same_bits(out.mean[g], mu)) << "group " << g;
    EXPECT_TRUE(same_bits(out.m2[g], q)) << "group " << g;
    std::memcpy(&got, &out.min[g], 8);
    EXPECT_TRUE(same_bits(got, lo_v)) << "group " << g;
    std::memcpy(&got, &out.max[g], 8);
    EXPECT_TRUE(same_bits(got, hi_v)) << "group " << g;
    EXPECT_EQ(out.fo[g], ford);
    EXPECT_EQ(out.fv[g], fval);
    EXPECT_EQ(out.lo[g], lord);
    EXPECT_EQ(out.lv[g], lval);
    ++g;
  }
}

}  // namespace
