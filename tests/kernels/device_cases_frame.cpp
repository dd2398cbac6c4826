// The frame layer's device cases (device_cases.hpp): keys, sort, partition, gather, groupby, ops, merge and
// rolling, each entry point on the device against its reference instantiation, twice.
#include <tuple>
#include <type_traits>

#include "device_case_util.hpp"

namespace kernel_check {
namespace {

using namespace util;

// ---- frames: keys, sort, partition, gather --------------------------------------------------------------

/// Two key columns (int64 in [0, 1000) masked, string codes of a 50-word dictionary), packed or not.
struct Keys {
  std::vector<I64> k;
  std::vector<U8> m;
  std::vector<std::int32_t> s;
  fk::KeyLayout layout;
  Keys(I64 n, bool packed, bool dropna) : k(ints(n, 1, 1000)), m(valid(n, 2, 13)), s(codes(n, 3, 50)) {
    layout.ncols = 2;
    layout.dropna = dropna;
    layout.packed = packed;
    if (packed) {
      const int w0 = layout.value_word(0), w1 = layout.value_word(1);
      layout.lo[w0] = fk::int_word(0);
      layout.span[w0] = 1000;
      layout.lo[w1] = 0;
      layout.span[w1] = 50;
      if (!dropna) layout.span[w0 - 1] = layout.span[w1 - 1] = 2;
    }
  }
};

/// Encoded words of Keys on the host (reference), as word columns.
std::vector<std::vector<U64>> host_words(const Keys& keys, I64 n, std::vector<U8>& keep) {
  const fk::KeyColumn kc[2] = {{host_view(ElementType::int64, keys.k, &keys.m)},
                               {host_view(ElementType::string, keys.s)}};
  std::vector<std::vector<U64>> w(keys.layout.width(), std::vector<U64>(static_cast<std::size_t>(n)));
  std::vector<U64*> wp;
  for (auto& x : w) wp.push_back(x.data());
  keep.assign(static_cast<std::size_t>(n), 0);
  fk::KeyKernels<Reference>::encode(kExec, kc, keys.layout, n, wp.data(), keep.data());
  return w;
}

Outcome key_encode(I64 n, const Options& opt, bool packed, bool dropna) {
  Outcome o;
  const Keys keys(n, packed, dropna);
  std::vector<U8> ref_keep;
  const auto ref = host_words(keys, n, ref_keep);
  const DevColumn k(ElementType::int64, keys.k, &keys.m), s(ElementType::string, keys.s);
  const fk::KeyColumn kc[2] = {{k.view()}, {s.view()}};
  const int W = keys.layout.width();
  std::vector<std::unique_ptr<Dev<U64>>> dw;
  std::vector<U64*> wp;
  for (int w = 0; w < W; ++w) {
    dw.push_back(std::make_unique<Dev<U64>>(static_cast<std::size_t>(n)));
    wp.push_back(dw.back()->get());
  }
  Dev<U8> dk(static_cast<std::size_t>(n));
  auto run = [&] { fk::KeyKernels<Device>::encode(kExec, kc, keys.layout, n, wp.data(), dk.get()); };
  auto pull = [&](std::vector<std::vector<U64>>& words, std::vector<U8>& keep) {
    words.clear();
    for (auto& d : dw) words.push_back(d->host());
    keep = dk.host();
  };
  std::vector<std::vector<U64>> a, b;
  std::vector<U8> ka, kb;
  run();
  pull(a, ka);
  run();
  pull(b, kb);
  for (int w = 0; w < W; ++w) compare(o, opt, "word " + std::to_string(w), ref[w], a[w], b[w]);
  compare(o, opt, "keep", ref_keep, ka, kb);
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 1 + 4 + 8 * W + 1);
  return o;
}

Outcome value_word_range(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> x = mixed(n, 4);
  U64 rmin, rmax, a[2], b[2];
  fk::KeyKernels<Reference>::value_word_range(kExec, {host_view(ElementType::float64, x)}, n, &rmin, &rmax);
  const DevColumn d(ElementType::float64, x);
  fk::KeyKernels<Device>::value_word_range(kExec, {d.view()}, n, &a[0], &a[1]);
  fk::KeyKernels<Device>::value_word_range(kExec, {d.view()}, n, &b[0], &b[1]);
  compare(o, opt, "range", std::vector<U64>{rmin, rmax}, std::vector<U64>{a[0], a[1]}, std::vector<U64>{b[0], b[1]});
  o.seconds = timed(opt, [&] { fk::KeyKernels<Device>::value_word_range(kExec, {d.view()}, n, &a[0], &a[1]); });
  o.bytes = 8.0 * static_cast<double>(n);
  return o;
}

Outcome sort_words_and_permutation(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<I64> k = ints(n, 5, 5000, -2500);
  const std::vector<U8> m = valid(n, 6, 17);
  const std::vector<double> x = mixed(n, 7);
  const fk::SortColumn hc[2] = {{host_view(ElementType::int64, k, &m), true},
                                {host_view(ElementType::float64, x), false}};
  std::vector<std::vector<U64>> rw(4, std::vector<U64>(static_cast<std::size_t>(n)));
  std::vector<U64*> rwp;
  for (auto& w : rw) rwp.push_back(w.data());
  fk::KeyKernels<Reference>::sort_words(kExec, hc, 2, false, n, rwp.data());
  const int bits[4] = {1, 64, 1, 64};
  std::vector<I64> rperm(static_cast<std::size_t>(n));
  std::vector<const U64*> crw(rwp.begin(), rwp.end());
  fk::SortKernels<Reference>::permutation(kExec, crw.data(), 4, bits, n, rperm.data());
  const DevColumn dk(ElementType::int64, k, &m), dx(ElementType::float64, x);
  const fk::SortColumn dc[2] = {{dk.view(), true}, {dx.view(), false}};
  std::vector<std::unique_ptr<Dev<U64>>> dw;
  std::vector<U64*> dwp;
  for (int w = 0; w < 4; ++w) {
    dw.push_back(std::make_unique<Dev<U64>>(static_cast<std::size_t>(n)));
    dwp.push_back(dw.back()->get());
  }
  std::vector<const U64*> cdw(dwp.begin(), dwp.end());
  Dev<I64> dperm(static_cast<std::size_t>(n));
  auto run = [&] {
    fk::KeyKernels<Device>::sort_words(kExec, dc, 2, false, n, dwp.data());
    fk::SortKernels<Device>::permutation(kExec, cdw.data(), 4, bits, n, dperm.get());
  };
  run();
  const auto a = dperm.host();
  std::vector<U64> w1a = dw[1]->host();
  run();
  compare(o, opt, "words", rw[1], w1a, dw[1]->host());
  compare(o, opt, "permutation", rperm, a, dperm.host());
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 1 + 8 + 4 * 8 + 8);
  return o;
}

Outcome sort_packed(I64 n, const Options& opt) {  // one packed word, 20 bits: sort_values of 20M int64 style
  Outcome o;
  std::vector<U64> key(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) key[i] = hh(8, i) % (1u << 20);
  const int bits[1] = {20};
  const U64* hw[1] = {key.data()};
  std::vector<I64> ref(static_cast<std::size_t>(n));
  fk::SortKernels<Reference>::permutation(kExec, hw, 1, bits, n, ref.data());
  const Dev<U64> dk(key);
  const U64* dw[1] = {dk.get()};
  Dev<I64> dp(static_cast<std::size_t>(n));
  auto run = [&] { fk::SortKernels<Device>::permutation(kExec, dw, 1, bits, n, dp.get()); };
  run();
  const auto a = dp.host();
  run();
  compare(o, opt, "permutation", ref, a, dp.host());
  std::vector<U64> g(static_cast<std::size_t>(n)), ga, gb;
  U64* ho[1] = {g.data()};
  fk::SortKernels<Reference>::gather_words(kExec, hw, 1, ref.data(), n, ho);
  Dev<U64> dg(static_cast<std::size_t>(n));
  U64* dgo[1] = {dg.get()};
  fk::SortKernels<Device>::gather_words(kExec, dw, 1, dp.get(), n, dgo);
  ga = dg.host();
  fk::SortKernels<Device>::gather_words(kExec, dw, 1, dp.get(), n, dgo);
  gb = dg.host();
  compare(o, opt, "gather_words", g, ga, gb);
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * 16;
  return o;
}

Outcome hash_route_group(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<I64> k = ints(n, 9, 1 << 30);
  const std::vector<std::int32_t> s = codes(n, 10, 50);
  const std::vector<double> x = mixed(n, 11);
  std::vector<U64> dict(50);
  for (int c = 0; c < 50; ++c) dict[c] = hh(12, c);
  const fk::HashColumn hc[3] = {{host_view(ElementType::int64, k)},
                                {host_view(ElementType::string, s), dict.data()},
                                {host_view(ElementType::float64, x)}};
  const int ranks = 4, parts = 16;
  std::vector<U64> rh(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> rb(static_cast<std::size_t>(n));
  std::vector<I64> rrows(static_cast<std::size_t>(n)), roff(ranks * parts + 1);
  fk::PartitionKernels<Reference>::hash_rows(kExec, hc, 3, n, rh.data());
  fk::PartitionKernels<Reference>::hash_buckets(kExec, rh.data(), n, ranks, parts, rb.data());
  fk::PartitionKernels<Reference>::group_by_bucket(kExec, rb.data(), n, ranks * parts, rrows.data(), roff.data());
  const DevColumn dk(ElementType::int64, k), ds(ElementType::string, s), dx(ElementType::float64, x);
  const Dev<U64> ddict(dict);
  const fk::HashColumn dc[3] = {{dk.view()}, {ds.view(), ddict.get()}, {dx.view()}};
  Dev<U64> dh(static_cast<std::size_t>(n));
  Dev<std::uint32_t> db(static_cast<std::size_t>(n));
  Dev<I64> drows(static_cast<std::size_t>(n)), doff(ranks * parts + 1);
  auto run = [&] {
    fk::PartitionKernels<Device>::hash_rows(kExec, dc, 3, n, dh.get());
    fk::PartitionKernels<Device>::hash_buckets(kExec, dh.get(), n, ranks, parts, db.get());
    fk::PartitionKernels<Device>::group_by_bucket(kExec, db.get(), n, ranks * parts, drows.get(), doff.get());
  };
  run();
  const auto ha = dh.host();
  const auto ra = drows.host();
  const auto oa = doff.host();
  run();
  compare(o, opt, "hashes", rh, ha, dh.host());
  compare(o, opt, "rows", rrows, ra, drows.host());
  compare(o, opt, "offsets", roff, oa, doff.host());
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 4 + 8 + 8 + 4 + 8);
  return o;
}

Outcome range_and_hot_buckets(I64 n, const Options& opt) {
  Outcome o;
  std::vector<U64> w0(static_cast<std::size_t>(n)), w1(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) w0[i] = hh(13, i) % 7, w1[i] = hh(14, i);
  std::vector<U64> split;  // 63 sorted records of 3 words (2 + row)
  for (int s = 1; s < 64; ++s)
    split.insert(split.end(), {static_cast<U64>(s * 7 / 64), hh(15, s) | 1, static_cast<U64>(s * n / 64)});
  for (int s = 0; s + 1 < 63; ++s) {  // keep them sorted lexicographically
    if (split[3 * s] == split[3 * (s + 1)] && split[3 * s + 1] > split[3 * (s + 1) + 1])
      std::swap(split[3 * s + 1], split[3 * (s + 1) + 1]);
  }
  const U64* hw[2] = {w0.data(), w1.data()};
  std::vector<std::uint32_t> rb(static_cast<std::size_t>(n)), rhot(static_cast<std::size_t>(n));
  fk::PartitionKernels<Reference>::range_buckets(kExec, hw, 2, true, 0, n, split.data(), 63, rb.data());
  std::vector<U64> hot{w1.empty() ? 1 : w1[0], 5, 77};
  std::sort(hot.begin(), hot.end());
  const std::vector<U8> side{0, 1, 0};
  fk::PartitionKernels<Reference>::hot_key_buckets(kExec, w1.data(), n, 3, 5, hot.data(), side.data(), 3, 0,
                                                   rhot.data());
  const Dev<U64> d0(w0), d1(w1), dsplit(split), dhot(hot);
  const Dev<U8> dside(side);
  const U64* dw[2] = {d0.get(), d1.get()};
  Dev<std::uint32_t> db(static_cast<std::size_t>(n)), dh(static_cast<std::size_t>(n));
  auto run = [&] {
    fk::PartitionKernels<Device>::range_buckets(kExec, dw, 2, true, 0, n, dsplit.get(), 63, db.get());
    fk::PartitionKernels<Device>::hot_key_buckets(kExec, d1.get(), n, 3, 5, dhot.get(), dside.get(), 3, 0, dh.get());
  };
  run();
  const auto ba = db.host();
  const auto ha = dh.host();
  run();
  compare(o, opt, "range buckets", rb, ba, db.host());
  compare(o, opt, "hot buckets", rhot, ha, dh.host());
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (16 + 4 + 8 + 4);
  return o;
}

Outcome gather_and_select(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> x = mixed(n, 16);
  const std::vector<U8> m = valid(n, 17, 5);
  std::vector<I64> rows(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) rows[i] = hh(18, i) % 10 == 0 ? -1 : static_cast<I64>(hh(19, i) % static_cast<U64>(n));
  std::vector<double> rout(static_cast<std::size_t>(n));
  std::vector<U8> rvalid(static_cast<std::size_t>(n));
  std::vector<I64> rsel(static_cast<std::size_t>(n));
  fk::GatherKernels<Reference>::column(kExec, host_view(ElementType::float64, x, &m), rows.data(), n, rout.data(),
                                       rvalid.data());
  const I64 rk = fk::GatherKernels<Reference>::select_rows(kExec, m.data(), n, rsel.data());
  rsel.resize(static_cast<std::size_t>(rk));
  const DevColumn dx(ElementType::float64, x, &m);
  const Dev<I64> drows(rows);
  Dev<double> dout(static_cast<std::size_t>(n));
  Dev<U8> dvalid(static_cast<std::size_t>(n));
  Dev<I64> dsel(static_cast<std::size_t>(n));
  I64 k = 0;
  auto run = [&] {
    fk::GatherKernels<Device>::column(kExec, dx.view(), drows.get(), n, dout.get(), dvalid.get());
    k = fk::GatherKernels<Device>::select_rows(kExec, dx.mask->get(), n, dsel.get());
  };
  run();
  const auto va = dout.host();
  const auto sa = dsel.host(static_cast<std::size_t>(k));
  run();
  compare(o, opt, "gather", rout, va, dout.host());
  compare(o, opt, "select", rsel, sa, dsel.host(static_cast<std::size_t>(k)));
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 8 + 8 + 1 + 1 + 1 + 8);
  return o;
}

// ---- frames: groupby, ops, merge, rolling ---------------------------------------------------------------

/// States of every kind, on the host or the device (n capacity).
template <template <class> class Buf>
struct States {
  Buf<I64> count, nunique;
  Buf<U64> sum, min, max, fo, fv, lo, lv;
  Buf<double> mean, m2;
  explicit States(std::size_t n)
      : count(n), nunique(n), sum(n), min(n), max(n), fo(n), fv(n), lo(n), lv(n), mean(n), m2(n) {}
  fk::AggStates view(bool with_nunique) {
    return {count.data_(),
            sum.data_(),
            mean.data_(),
            m2.data_(),
            min.data_(),
            max.data_(),
            fo.data_(),
            fv.data_(),
            lo.data_(),
            lv.data_(),
            with_nunique ? nunique.data_() : nullptr};
  }
};
template <class T>
struct HostBuf : std::vector<T> {
  explicit HostBuf(std::size_t n) : std::vector<T>(std::max<std::size_t>(n, 1)) {}
  T* data_() { return this->data(); }
};
template <class T>
struct DevBuf : Dev<T> {
  explicit DevBuf(std::size_t n) : Dev<T>(n) {}
  T* data_() { return this->get(); }
};

Outcome groupby(I64 n, const Options& opt) {
  Outcome o;
  const Keys keys(n, true, true);
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  const std::vector<double> x = exact(n, 20);
  const std::vector<I64> z = ints(n, 21, 300);
  const std::vector<U8> zm = valid(n, 22, 9);
  const int bits[1] = {fk::bits_for(1000 * 50 - 1)};
  const U64* hw[1] = {words[0].data()};
  const auto un = static_cast<std::size_t>(n);
  States<HostBuf> rx(un), rz(un);
  std::vector<U64> rkey(std::max<std::size_t>(un, 1));
  std::vector<I64> rsize(std::max<std::size_t>(un, 1));
  U64* rk[1] = {rkey.data()};
  fk::AggColumn ra[2] = {{host_view(ElementType::float64, x), rx.view(false)},
                         {host_view(ElementType::int64, z, &zm), rz.view(true)}};
  const I64 G = fk::GroupbyKernels<Reference>::aggregate(kExec, hw, 1, bits, n, keep.data(), ra, 2, 0,
                                                         {rk, rsize.data(), nullptr});
  // Device.
  const Dev<U64> dw(words[0]);
  const Dev<U8> dkeep(keep);
  const DevColumn dx(ElementType::float64, x), dz(ElementType::int64, z, &zm);
  States<DevBuf> sx(un), sz(un);
  Dev<U64> dkey(un);
  Dev<I64> dsize(un);
  U64* dk[1] = {dkey.get()};
  const U64* dwp[1] = {dw.get()};
  fk::AggColumn da[2] = {{dx.view(), sx.view(false)}, {dz.view(), sz.view(true)}};
  I64 g = 0;
  auto run = [&] {
    g = fk::GroupbyKernels<Device>::aggregate(kExec, dwp, 1, bits, n, dkeep.get(), da, 2, 0,
                                              {dk, dsize.get(), nullptr});
  };
  auto pull = [&] {
    const auto gs = static_cast<std::size_t>(g);
    return std::vector<std::vector<U64>>{dkey.host(gs),   sx.sum.host(gs), sz.sum.host(gs), sz.min.host(gs),
                                         sx.max.host(gs), sx.fv.host(gs),  sz.lv.host(gs)};
  };
  run();
  const auto a = pull();
  const auto ma = sx.m2.host(static_cast<std::size_t>(g));
  const auto cnt_a = sz.nunique.host(static_cast<std::size_t>(g));
  run();
  const auto b = pull();
  const auto gs = static_cast<std::size_t>(G);
  auto cut = [gs](std::vector<U64> v) {
    v.resize(gs);
    return v;
  };
  const std::vector<std::vector<U64>> ref{cut(rkey),   cut(rx.sum), cut(rz.sum), cut(rz.min),
                                          cut(rx.max), cut(rx.fv),  cut(rz.lv)};
  if (g != G) {
    o.equal = false;
    o.note += "groups " + std::to_string(g) + " != " + std::to_string(G) + "; ";
  } else {
    const char* what[] = {"keys", "sum x", "sum z", "min z", "max x", "first x", "last z"};
    for (int k = 0; k < 7; ++k) compare(o, opt, what[k], ref[k], a[k], b[k]);
    std::vector<double> rm2(rx.m2.begin(), rx.m2.begin() + static_cast<std::ptrdiff_t>(gs));
    compare(o, opt, "m2 x", rm2, ma, sx.m2.host(gs));
    std::vector<I64> rnu(rz.nunique.begin(), rz.nunique.begin() + static_cast<std::ptrdiff_t>(gs));
    compare(o, opt, "nunique z", rnu, cnt_a, sz.nunique.host(gs));
    // finalize (std of x) and combine (the states as records of themselves, merged by key).
    std::vector<double> rstd(std::max<std::size_t>(gs, 1)), dstd_a, dstd_b;
    fk::GroupbyKernels<Reference>::finalize(kExec, fk::AggKind::std, ElementType::float64, rx.view(false), rsize.data(),
                                            G, rstd.data(), nullptr);
    Dev<double> dstd(std::max<std::size_t>(gs, 1));
    fk::GroupbyKernels<Device>::finalize(kExec, fk::AggKind::std, ElementType::float64, sx.view(false), dsize.get(), g,
                                         dstd.get(), nullptr);
    dstd_a = dstd.host(gs);
    fk::GroupbyKernels<Device>::finalize(kExec, fk::AggKind::std, ElementType::float64, sx.view(false), dsize.get(), g,
                                         dstd.get(), nullptr);
    rstd.resize(gs);
    compare(o, opt, "finalize std", rstd, dstd_a, dstd.host(gs));
  }
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 1 + 8 + 8 + 1);
  return o;
}

Outcome groupby_combine(I64 n, const Options& opt) {
  Outcome o;
  // n partial records of 1000 keys: random states merged by key in record order.
  const auto un = static_cast<std::size_t>(n);
  std::vector<U64> key(un);
  std::vector<I64> sizes(un);
  States<HostBuf> in(un);
  for (I64 r = 0; r < n; ++r) {
    key[r] = hh(30, r) % 1000;
    sizes[r] = in.count[r] = static_cast<I64>(hh(31, r) % 5);
    const double s = static_cast<double>(hh(32, r) % 100000) * 0.5;
    std::memcpy(&in.sum[r], &s, 8);
    in.mean[r] = in.count[r] ? s / static_cast<double>(in.count[r]) : 0;
    in.m2[r] = static_cast<double>(hh(33, r) % 1000) * 0.25;
    in.min[r] = in.max[r] = hh(34, r) % 1000;
    in.fo[r] = hh(35, r) % 100000, in.lo[r] = hh(36, r) % 100000;
    in.fv[r] = hh(37, r), in.lv[r] = hh(38, r);
  }
  const fk::AggStates hin = in.view(false);
  States<HostBuf> rout(un);
  fk::AggColumn rcol{{ElementType::int64, nullptr, nullptr}, rout.view(false)};
  std::vector<U64> rkey(std::max<std::size_t>(un, 1));
  U64* rk[1] = {rkey.data()};
  const U64* hw[1] = {key.data()};
  const I64 G = fk::GroupbyKernels<Reference>::combine(kExec, hw, 1, nullptr, n, sizes.data(), &hin, &rcol, 1,
                                                       {rk, nullptr, nullptr});
  States<DevBuf> din(un), dout(un);
  auto up = [](auto& d, const auto& h) { upload(d, static_cast<const std::vector<std::decay_t<decltype(h[0])>>&>(h)); };
  up(din.count, in.count), up(din.sum, in.sum), up(din.mean, in.mean), up(din.m2, in.m2), up(din.min, in.min);
  up(din.max, in.max), up(din.fo, in.fo), up(din.fv, in.fv), up(din.lo, in.lo), up(din.lv, in.lv);
  const Dev<U64> dkeyin(key);
  const Dev<I64> dsizes(sizes);
  const fk::AggStates dis = din.view(false);
  fk::AggColumn dcol{{ElementType::int64, nullptr, nullptr}, dout.view(false)};
  Dev<U64> dkey(un);
  U64* dk[1] = {dkey.get()};
  const U64* dw[1] = {dkeyin.get()};
  I64 g = 0;
  auto run = [&] {
    g = fk::GroupbyKernels<Device>::combine(kExec, dw, 1, nullptr, n, dsizes.get(), &dis, &dcol, 1,
                                            {dk, nullptr, nullptr});
  };
  run();
  const auto gs = static_cast<std::size_t>(G);
  const auto ma = dout.m2.host(gs);
  const auto sa = dout.sum.host(gs);
  run();
  std::vector<double> rm2(rout.m2.begin(), rout.m2.begin() + static_cast<std::ptrdiff_t>(gs));
  std::vector<U64> rsum(rout.sum.begin(), rout.sum.begin() + static_cast<std::ptrdiff_t>(gs));
  if (g != G) o.equal = false, o.note += "groups differ; ";
  compare(o, opt, "m2", rm2, ma, dout.m2.host(gs));
  compare(o, opt, "sum", rsum, sa, dout.sum.host(gs));
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * 8 * 12;
  return o;
}

Outcome ops(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> y = mixed(n, 41);
  const std::vector<I64> k = ints(n, 42, 500);
  const std::vector<U8> km = valid(n, 43, 7), pred = valid(n, 44, 2), pv = valid(n, 45, 11);
  const std::vector<std::int32_t> s = codes(n, 46, 30);
  const auto un = static_cast<std::size_t>(n);
  // cumsum's input: y's mixed magnitudes without its NaN (which would make every later sum NaN), masked as k;
  // both backends add it in ordered_scan.inl's fixed order, so the device gives the reference's bits.
  std::vector<double> z = y;
  for (double& v : z) v = std::isnan(v) ? 0.25 : v;
  const fk::ColumnView hy = host_view(ElementType::float64, y), hk = host_view(ElementType::int64, k, &km),
                       hs = host_view(ElementType::string, s), hx = host_view(ElementType::float64, z, &km);
  const DevColumn dx(ElementType::float64, z, &km), dy(ElementType::float64, y), dk(ElementType::int64, k, &km),
      ds(ElementType::string, s);
  const Dev<U8> dpred(pred), dpv(pv);
  const std::vector<double> set{-3.5, 0.0, 1.5, 7.0};
  const std::vector<std::int32_t> cset{2, 5, 29};
  const Dev<double> dset(set);
  const Dev<std::int32_t> dcset(cset);
  // Reference.
  std::vector<I64> rf(un), rd(un);
  const I64 nf = fk::OpsKernels<Reference>::filter_rows(kExec, pred.data(), pv.data(), n, rf.data());
  const fk::ColumnView hc[3] = {hy, hk, hs};
  const I64 nd = fk::OpsKernels<Reference>::dropna_rows(kExec, hc, 3, n, rd.data());
  rf.resize(static_cast<std::size_t>(nf)), rd.resize(static_cast<std::size_t>(nd));
  std::vector<U8> ri(un), rc(un);
  fk::OpsKernels<Reference>::isin_values(kExec, hy, n, set.data(), 4, ri.data());
  fk::OpsKernels<Reference>::isin_codes(kExec, hs, n, cset.data(), 3, rc.data());
  std::vector<double> rcs(un), rsh(un);
  std::vector<U8> rshv(un);
  fk::OpsKernels<Reference>::cumsum(kExec, hx, n, 0, rcs.data());
  fk::OpsKernels<Reference>::shift(kExec, hy, n, 3, std::max<I64>(n - 3, 0), 3, true, rsh.data(), rshv.data());
  // Device.
  Dev<I64> df(un), dd(un);
  Dev<U8> di(un), dc(un), dshv(un);
  Dev<double> dcs(un), dsh(un);
  const fk::ColumnView dcv[3] = {dy.view(), dk.view(), ds.view()};
  I64 mf = 0, md = 0;
  auto run = [&] {
    mf = fk::OpsKernels<Device>::filter_rows(kExec, dpred.get(), dpv.get(), n, df.get());
    md = fk::OpsKernels<Device>::dropna_rows(kExec, dcv, 3, n, dd.get());
    fk::OpsKernels<Device>::isin_values(kExec, dy.view(), n, dset.get(), 4, di.get());
    fk::OpsKernels<Device>::isin_codes(kExec, ds.view(), n, dcset.get(), 3, dc.get());
    fk::OpsKernels<Device>::cumsum(kExec, dx.view(), n, 0, dcs.get());
    fk::OpsKernels<Device>::shift(kExec, dy.view(), n, 3, std::max<I64>(n - 3, 0), 3, true, dsh.get(), dshv.get());
  };
  run();
  const auto fa = df.host(static_cast<std::size_t>(mf));
  const auto da = dd.host(static_cast<std::size_t>(md));
  const auto ia = di.host();
  const auto ca = dc.host();
  const auto csa = dcs.host();
  const auto sha = dsh.host();
  const auto shva = dshv.host();
  run();
  compare(o, opt, "filter", rf, fa, df.host(static_cast<std::size_t>(mf)));
  compare(o, opt, "dropna", rd, da, dd.host(static_cast<std::size_t>(md)));
  compare(o, opt, "isin values", ri, ia, di.host());
  compare(o, opt, "isin codes", rc, ca, dc.host());
  compare(o, opt, "cumsum (masked, mixed data)", rcs, csa, dcs.host());
  rsh.resize(static_cast<std::size_t>(std::max<I64>(n - 3, 0))), rshv.resize(rsh.size());
  auto sh_b = dsh.host(rsh.size());
  auto shv_b = dshv.host(rsh.size());
  auto sh_a = std::vector<double>(sha.begin(), sha.begin() + static_cast<std::ptrdiff_t>(rsh.size()));
  auto shv_a = std::vector<U8>(shva.begin(), shva.begin() + static_cast<std::ptrdiff_t>(rsh.size()));
  compare(o, opt, "diff", rsh, sh_a, sh_b);
  compare(o, opt, "diff validity", rshv, shv_a, shv_b);
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * 60;
  return o;
}

// group_transform's compute: n tagged rows (keys in [0, groups), row numbers in reverse, so each group's rows arrive
// out of row order) through each of `ops` (values: floats with NaN and -0.0, or int64 with a mask; results float64
// or int64 with a mask); results and row numbers bitwise the reference's. The first op is timed.
struct TransformOp {
  const char* name;
  fk::SegmentOp op;
  bool ints;            // the masked int64 values (else the floats)
  bool int_out = ints;  // an int64 result with a mask (else float64)
};
Outcome group_transform_ops(I64 n, const Options& opt, I64 groups, const std::vector<TransformOp>& ops) {
  Outcome o;
  const auto un = static_cast<std::size_t>(n);
  std::vector<U64> key(un);
  std::vector<I64> row(un);
  const std::vector<I64> k = ints(n, 60, groups), iv = ints(n, 61, 1000, -500);
  for (std::size_t i = 0; i < un; ++i) key[i] = static_cast<U64>(k[i]), row[i] = n - 1 - static_cast<I64>(i);
  const std::vector<double> y = mixed(n, 62);
  const std::vector<U8> im = valid(n, 63, 5);
  const int bits[1] = {fk::bits_for(static_cast<U64>(std::max<I64>(groups - 1, 1)))};
  const int row_bits = fk::bits_for(static_cast<U64>(std::max<I64>(n - 1, 0)));
  const Dev<U64> dkey(key);
  const Dev<I64> drow(row);
  const DevColumn dy(ElementType::float64, y), di(ElementType::int64, iv, &im);
  for (const TransformOp& op : ops) {
    const ElementType out_type = op.int_out ? ElementType::int64 : ElementType::float64;
    const fk::SegmentValues hv =
        op.ints ? fk::SegmentValues{ElementType::int64, reinterpret_cast<const std::byte*>(iv.data()), im.data()}
                : fk::SegmentValues{ElementType::float64, reinterpret_cast<const std::byte*>(y.data()), nullptr};
    const fk::ColumnView dview = op.ints ? di.view() : dy.view();
    const fk::SegmentValues dv{dview.type, static_cast<const std::byte*>(dview.data), dview.valid};
    std::vector<U64> ref(un);
    std::vector<U8> ref_valid(un);
    std::vector<I64> ref_row(un);
    const U64* hk[1] = {key.data()};
    fk::TransformKernels<Reference>::compute(
        kExec, hk, 1, bits, row.data(), row_bits, n, hv, op.op,
        {out_type, reinterpret_cast<std::byte*>(ref.data()), op.int_out ? ref_valid.data() : nullptr}, ref_row.data());
    Dev<U64> dout(un);
    Dev<U8> dvalid(un);
    Dev<I64> drow_out(un);
    const U64* dk[1] = {dkey.get()};
    auto run = [&] {
      fk::TransformKernels<Device>::compute(
          kExec, dk, 1, bits, drow.get(), row_bits, n, dv, op.op,
          {out_type, reinterpret_cast<std::byte*>(dout.get()), op.int_out ? dvalid.get() : nullptr}, drow_out.get());
    };
    run();
    const auto a = dout.host();
    const auto ra = drow_out.host();
    const auto va = dvalid.host();
    run();
    compare(o, opt, std::string(op.name), ref, a, dout.host());
    compare(o, opt, std::string(op.name) + " rows", ref_row, ra, drow_out.host());
    if (op.int_out) compare(o, opt, std::string(op.name) + " validity", ref_valid, va, dvalid.host());
    if (&op == &ops[0]) o.seconds = timed(opt, run);
  }
  o.bytes = static_cast<double>(n) * 40;
  return o;
}

// 500 groups through the pieces (a float cumsum, a transform mean), the row-parallel operations (an int shift
// with a mask), the sorted ones (a quantile, an int nunique with a mask) and the windowed ones (a float rolling
// std, an int rolling max with a mask: float64 results).
Outcome group_transform(I64 n, const Options& opt) {
  const fk::SegmentAgg sum = fk::SegmentAgg::sum;
  return group_transform_ops(
      n, opt, 500,
      {{"cumsum", {fk::SegmentScan::cumsum}, false},
       {"shift", {fk::SegmentScan::shift, sum, 2}, true},
       {"transform mean", {fk::SegmentScan::transform, fk::SegmentAgg::mean}, false},
       {"transform quantile", {fk::SegmentScan::transform, fk::SegmentAgg::quantile, 1, true, 0.3}, false},
       {"transform nunique", {fk::SegmentScan::transform, fk::SegmentAgg::nunique}, true},
       {"rolling std", {fk::SegmentScan::rolling, sum, 1, true, 0.5, 5, 2, fk::RollingKind::std}, false},
       {"rolling max", {fk::SegmentScan::rolling, sum, 1, true, 0.5, 3, 3, fk::RollingKind::max}, true, false}});
}

// Four huge groups through the row-parallel operations (segments_by_row.inl), the pieces (segments_by_piece.inl)
// and the runs of rolling, none of whose time is the largest group's: scans of floats (-0.0, NaN), masked ints and
// positions, the per-group totals, float sums, products and moments, the sorted aggregates and windows.
Outcome group_transform_few_groups(I64 n, const Options& opt) {
  using fk::SegmentAgg;
  using fk::SegmentScan;
  return group_transform_ops(
      n, opt, 4,
      {{"cummin", {SegmentScan::cummin}, false},
       {"cummax int", {SegmentScan::cummax}, true},
       {"cumsum int", {SegmentScan::cumsum}, true},
       {"cumcount", {SegmentScan::cumcount}, false, true},
       {"diff", {SegmentScan::diff, SegmentAgg::sum, -3}, false},
       {"ffill int", {SegmentScan::ffill}, true},
       {"bfill", {SegmentScan::bfill}, false},
       {"transform max", {SegmentScan::transform, SegmentAgg::max}, false},
       {"transform first int", {SegmentScan::transform, SegmentAgg::first}, true},
       {"transform count", {SegmentScan::transform, SegmentAgg::count}, false, true},
       {"transform sum int", {SegmentScan::transform, SegmentAgg::sum}, true},
       {"transform nunique int", {SegmentScan::transform, SegmentAgg::nunique}, true},
       {"transform quantile", {SegmentScan::transform, SegmentAgg::quantile, 1, true, 0.7}, false},
       {"cumsum", {SegmentScan::cumsum}, false},
       {"cumprod", {SegmentScan::cumprod}, false},
       {"transform sum", {SegmentScan::transform, SegmentAgg::sum}, false},
       {"transform mean int", {SegmentScan::transform, SegmentAgg::mean}, true, false},
       {"transform std", {SegmentScan::transform, SegmentAgg::std}, false},
       {"rolling mean", {SegmentScan::rolling, SegmentAgg::sum, 1, true, 0.5, 100, 1, fk::RollingKind::mean}, false},
       {"rolling min int",
        {SegmentScan::rolling, SegmentAgg::sum, 1, true, 0.5, 7, 3, fk::RollingKind::min},
        true,
        false}});
}

// Series' moments: count, exact-data sum, min and max bitwise (NaN, -0.0 and masks in y); mean and M2 merge in
// another order on the device, so only their runs' determinism is compared.
Outcome column_moments(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> x = exact(n, 60), y = mixed(n, 61);
  const std::vector<U8> ym = valid(n, 62, 5);
  const DevColumn dx(ElementType::float64, x), dy(ElementType::float64, y, &ym);
  std::vector<double> ref(12), a(12), b(12);
  fk::OpsKernels<Reference>::column_moments(kExec, host_view(ElementType::float64, x), n, ref.data());
  fk::OpsKernels<Reference>::column_moments(kExec, host_view(ElementType::float64, y, &ym), n, ref.data() + 6);
  auto run = [&](std::vector<double>& out) {
    fk::OpsKernels<Device>::column_moments(kExec, dx.view(), n, out.data());
    fk::OpsKernels<Device>::column_moments(kExec, dy.view(), n, out.data() + 6);
  };
  run(a);
  run(b);
  auto pick = [](const std::vector<double>& v, std::initializer_list<int> at) {
    std::vector<double> out;
    for (int i : at) out.push_back(v[static_cast<std::size_t>(i)]);
    return out;
  };
  compare(o, opt, "moments count/sum/min/max (exact x)", pick(ref, {0, 1, 4, 5}), pick(a, {0, 1, 4, 5}),
          pick(b, {0, 1, 4, 5}));
  compare(o, opt, "moments count/min/max (mixed y)", pick(ref, {6, 10, 11}), pick(a, {6, 10, 11}),
          pick(b, {6, 10, 11}));
  compare(o, opt, "moments mean/M2 (determinism)", pick(a, {2, 3, 8, 9}), pick(a, {2, 3, 8, 9}), pick(b, {2, 3, 8, 9}));
  std::vector<double> scratch(12);
  o.seconds = timed(opt, [&] { run(scratch); });
  return o;
}

// to_array's cast: doubles (masked rows NaN; NaN, -0.0 and int64 extremes) and int64 values bitwise, and the
// first masked row of an int64 column.
Outcome column_values(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> y = mixed(n, 66);
  const std::vector<I64> k = ints(n, 67, 1000);
  const std::vector<U8> ym = valid(n, 68, 9), km = valid(n, 69, 13);
  const auto un = static_cast<std::size_t>(n);
  const DevColumn dy(ElementType::float64, y, &ym), dk(ElementType::int64, k, &km), dt(ElementType::timestamp, k);
  std::vector<double> ry(un), rk(un);
  std::vector<I64> rt(un);
  fk::OpsKernels<Reference>::column_values(kExec, host_view(ElementType::float64, y, &ym), n, true, ry.data());
  fk::OpsKernels<Reference>::column_values(kExec, host_view(ElementType::int64, k, &km), n, true, rk.data());
  fk::OpsKernels<Reference>::column_values(kExec, host_view(ElementType::timestamp, k), n, false, rt.data());
  std::vector<I64> rnull(un, 0);
  const I64 rfirst =
      fk::OpsKernels<Reference>::column_values(kExec, host_view(ElementType::int64, k, &km), n, false, rnull.data());
  Dev<double> ay(un), ak(un);
  Dev<I64> at(un), anull(un);
  I64 first = 0;
  auto run = [&] {
    fk::OpsKernels<Device>::column_values(kExec, dy.view(), n, true, ay.get());
    fk::OpsKernels<Device>::column_values(kExec, dk.view(), n, true, ak.get());
    fk::OpsKernels<Device>::column_values(kExec, dt.view(), n, false, at.get());
    first = fk::OpsKernels<Device>::column_values(kExec, dk.view(), n, false, anull.get());
  };
  run();
  const auto ya = ay.host(), ka = ak.host();
  const auto ta = at.host();
  const I64 first_a = first;
  run();
  compare(o, opt, "float64 with a mask as doubles", ry, ya, ay.host());
  compare(o, opt, "int64 with a mask as doubles", rk, ka, ak.host());
  compare(o, opt, "timestamps as int64", rt, ta, at.host());
  compare(o, opt, "the first null of an int64 column", std::vector<I64>{rfirst}, std::vector<I64>{first_a},
          std::vector<I64>{first});
  o.seconds = timed(opt, run);
  return o;
}

// The rolling windows' input column as doubles (RollingKernels::values, rolling.cpp's append_values): float64 as is
// (NaN, -0.0), int64 with its extremes, timestamps and booleans converted, masked rows NaN.
Outcome rolling_values(I64 n, const Options& opt) {
  Outcome o;
  const auto un = static_cast<std::size_t>(n);
  const std::vector<double> y = mixed(n, 190);
  std::vector<I64> k = ints(n, 191, 1000, -500);
  for (I64 i = 0; i < n; ++i)
    if (hh(192, i) % 97 == 3) k[i] = i % 2 ? std::numeric_limits<I64>::max() : std::numeric_limits<I64>::min();
  std::vector<U8> b(un);
  for (I64 i = 0; i < n; ++i) b[i] = static_cast<U8>(hh(195, i) % 2);
  const std::vector<U8> ym = valid(n, 193, 7), km = valid(n, 194, 11), bm = valid(n, 196, 5);
  const DevColumn dy(ElementType::float64, y, &ym), dk(ElementType::int64, k, &km), dt(ElementType::timestamp, k),
      db(ElementType::boolean, b, &bm);
  using RR = fk::RollingKernels<Reference>;
  using DR = fk::RollingKernels<Device>;
  std::vector<double> ry(un), rk(un), rt(un), rb(un);
  RR::values(kExec, host_view(ElementType::float64, y, &ym), n, ry.data());
  RR::values(kExec, host_view(ElementType::int64, k, &km), n, rk.data());
  RR::values(kExec, host_view(ElementType::timestamp, k), n, rt.data());
  RR::values(kExec, host_view(ElementType::boolean, b, &bm), n, rb.data());
  Dev<double> ay(un), ak(un), at(un), ab(un);
  auto run = [&] {
    DR::values(kExec, dy.view(), n, ay.get());
    DR::values(kExec, dk.view(), n, ak.get());
    DR::values(kExec, dt.view(), n, at.get());
    DR::values(kExec, db.view(), n, ab.get());
  };
  run();
  const auto ya = ay.host(), ka = ak.host(), ta = at.host(), ba = ab.host();
  run();
  compare(o, opt, "float64 with a mask", ry, ya, ay.host());
  compare(o, opt, "int64 with a mask and its extremes", rk, ka, ak.host());
  compare(o, opt, "timestamps", rt, ta, at.host());
  compare(o, opt, "booleans with a mask", rb, ba, ab.host());
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 1 + 8 + 1 + 8 + 1 + 1 + 4 * 8);
  return o;
}

// groupby nunique across partitions: each half's distinct (group, value) pairs, then the pairs of both halves
// (duplicates between them) counted per group and aggregation against the whole input's groups.
Outcome nunique_pairs(I64 n, const Options& opt) {
  Outcome o;
  const Keys keys(n, true, true);
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  const std::vector<I64> z = ints(n, 63, 40);
  const std::vector<U8> zm = valid(n, 64, 6);
  const std::vector<double> y = mixed(n, 65);
  const int bits[1] = {fk::bits_for(1000 * 50 - 1)};
  const auto un = static_cast<std::size_t>(n);
  const I64 h = n / 2;
  // The groups of the whole input (their keys), on the reference.
  std::vector<U64> gkey(std::max<std::size_t>(un, 1));
  std::vector<I64> gsize(std::max<std::size_t>(un, 1));
  U64* gk[1] = {gkey.data()};
  const U64* hw[1] = {words[0].data()};
  const I64 G = fk::GroupbyKernels<Reference>::aggregate(kExec, hw, 1, bits, n, keep.data(), nullptr, 0, 0,
                                                         {gk, gsize.data(), nullptr});
  // Pairs of [0, h) and [h, n) for z (aggregation 0) and y (aggregation 1), as 3 word columns of capacity 2 n.
  auto pairs_of = [&](auto tag, const std::vector<const U64*>& w, const U8* kp, const fk::ColumnView& zc,
                      const fk::ColumnView& yc, const std::vector<U64*>& out) {
    using B = typename decltype(tag)::type;
    I64 at = 0;
    for (int half = 0; half < 2; ++half) {
      const I64 b0 = half ? h : 0, len = half ? n - h : h;
      const U64* wp[1] = {w[0] + b0};
      auto shifted = [b0](fk::ColumnView c) {
        c.data = static_cast<const std::byte*>(c.data) + b0 * 8;
        if (c.valid) c.valid += b0;
        return c;
      };
      for (int agg = 0; agg < 2; ++agg) {
        U64* o3[3] = {out[0] + at, out[1] + at, out[2] + at};
        at += fk::GroupbyKernels<B>::distinct_pairs(kExec, wp, 1, bits, len, kp + b0, shifted(agg ? yc : zc),
                                                    static_cast<U64>(agg), o3);
      }
    }
    return at;
  };
  std::vector<std::vector<U64>> rp(3, std::vector<U64>(2 * un + 1));
  const I64 np =
      pairs_of(std::type_identity<Reference>{}, {words[0].data()}, keep.data(), host_view(ElementType::int64, z, &zm),
               host_view(ElementType::float64, y), {rp[0].data(), rp[1].data(), rp[2].data()});
  std::vector<I64> rcount(2 * std::max<std::size_t>(static_cast<std::size_t>(G), 1));
  const U64* rpw[3] = {rp[0].data(), rp[1].data(), rp[2].data()};
  const U64* gkc[1] = {gkey.data()};
  fk::GroupbyKernels<Reference>::count_pairs(kExec, rpw, 1, bits, np, gkc, G, 2, rcount.data());
  // Device.
  const Dev<U64> dw(words[0]), dgk(gkey);
  const Dev<U8> dkeep(keep);
  const DevColumn dz(ElementType::int64, z, &zm), dy(ElementType::float64, y);
  std::vector<std::unique_ptr<Dev<U64>>> dp;
  for (int c = 0; c < 3; ++c) dp.push_back(std::make_unique<Dev<U64>>(2 * un + 1));
  const std::vector<I64> zeros(rcount.size(), 0);
  Dev<I64> dcount(zeros);
  I64 mp = 0;
  auto run = [&] {
    mp = pairs_of(std::type_identity<Device>{}, {dw.get()}, dkeep.get(), dz.view(), dy.view(),
                  {dp[0]->get(), dp[1]->get(), dp[2]->get()});
    const U64* dpw[3] = {dp[0]->get(), dp[1]->get(), dp[2]->get()};
    const U64* dgkc[1] = {dgk.get()};
    fk::GroupbyKernels<Device>::count_pairs(kExec, dpw, 1, bits, mp, dgkc, G, 2, dcount.get());
  };
  run();
  std::vector<std::vector<U64>> a;
  for (int c = 0; c < 3; ++c) a.push_back(dp[c]->host(static_cast<std::size_t>(mp)));
  const auto ca = dcount.host();
  run();
  if (mp != np) {
    o.equal = false;
    o.note += "pairs " + std::to_string(mp) + " != " + std::to_string(np) + "; ";
  } else {
    for (int c = 0; c < 3; ++c) {
      rp[c].resize(static_cast<std::size_t>(np));
      compare(o, opt, "pair word " + std::to_string(c), rp[c], a[c], dp[c]->host(static_cast<std::size_t>(mp)));
    }
  }
  compare(o, opt, "nunique counts", rcount, ca, dcount.host());
  o.seconds = timed(opt, run);
  return o;
}

Outcome unique_value_counts(I64 n, const Options& opt) {
  Outcome o;
  const Keys keys(n, false, false);  // nulls kept: unique's encoding
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  const auto un = static_cast<std::size_t>(n);
  const int bits[4] = {1, 64, 1, 64};
  std::vector<const U64*> hw;
  for (auto& w : words) hw.push_back(w.data());
  std::vector<I64> rf(un), rc(un), vf(un), vc(un);
  const I64 G = fk::OpsKernels<Reference>::unique(kExec, hw.data(), 4, bits, n, rf.data(), rc.data());
  const I64 V = fk::OpsKernels<Reference>::value_counts(kExec, hw.data(), 4, bits, n, nullptr, vf.data(), vc.data());
  std::vector<std::unique_ptr<Dev<U64>>> dw;
  std::vector<const U64*> dwp;
  for (auto& w : words) {
    dw.push_back(std::make_unique<Dev<U64>>(w));
    dwp.push_back(dw.back()->get());
  }
  Dev<I64> df(un), dc(un), dvf(un), dvc(un);
  I64 g = 0, v = 0;
  auto run = [&] {
    g = fk::OpsKernels<Device>::unique(kExec, dwp.data(), 4, bits, n, df.get(), dc.get());
    v = fk::OpsKernels<Device>::value_counts(kExec, dwp.data(), 4, bits, n, nullptr, dvf.get(), dvc.get());
  };
  run();
  const auto fa = df.host(static_cast<std::size_t>(g)), va = dvf.host(static_cast<std::size_t>(v)),
             vca = dvc.host(static_cast<std::size_t>(v));
  run();
  rf.resize(static_cast<std::size_t>(G)), vf.resize(static_cast<std::size_t>(V)),
      vc.resize(static_cast<std::size_t>(V));
  compare(o, opt, "unique first rows", rf, fa, df.host(static_cast<std::size_t>(g)));
  compare(o, opt, "value_counts rows", vf, va, dvf.host(static_cast<std::size_t>(v)));
  compare(o, opt, "value_counts counts", vc, vca, dvc.host(static_cast<std::size_t>(v)));
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * 32 * 2;
  return o;
}

Outcome join(I64 n, const Options& opt, bool direct, fk::JoinSides kind) {
  Outcome o;
  const I64 nb = std::max<I64>(n / 10, 1), np = n;  // W4's shape: 10 probe rows per build row
  const std::vector<I64> pk = ints(np, 50, nb * 2), bk = ints(nb, 51, nb * 2);
  const std::vector<U8> pm = valid(np, 52, 23), bm = valid(nb, 53, 29);
  std::vector<U64> pw(static_cast<std::size_t>(np)), bw(static_cast<std::size_t>(nb));
  for (I64 i = 0; i < np; ++i) pw[i] = fk::int_word(pk[i]);
  for (I64 i = 0; i < nb; ++i) bw[i] = fk::int_word(bk[i]);
  const U64* hp[1] = {pw.data()};
  const U64* hb[1] = {bw.data()};
  std::vector<std::byte> ws(fk::JoinKernels<Reference>::workspace_bytes(np, nb));
  const I64 pairs =
      direct ? fk::JoinKernels<Reference>::count_direct(kExec, {pk.data(), pm.data(), np}, {bk.data(), bm.data(), nb},
                                                        0, static_cast<U64>(nb * 2), kind, ws.data())
             : fk::JoinKernels<Reference>::count(kExec, {hp, pm.data(), np}, {hb, bm.data(), nb}, 1, nullptr, kind,
                                                 ws.data());
  std::vector<I64> rpi(static_cast<std::size_t>(pairs)), rbi(static_cast<std::size_t>(pairs));
  fk::JoinKernels<Reference>::fill(kExec, np, nb, kind, ws.data(), pairs, rpi.data(), rbi.data());
  const Dev<I64> dpk(pk), dbk(bk);
  const Dev<U64> dpw(pw), dbw(bw);
  const Dev<U8> dpm(pm), dbm(bm);
  Dev<std::byte> dws(fk::JoinKernels<Device>::workspace_bytes(np, nb));
  const U64* dp[1] = {dpw.get()};
  const U64* db[1] = {dbw.get()};
  I64 dpairs = 0;
  std::unique_ptr<Dev<I64>> dpi, dbi;
  auto run = [&] {
    dpairs = direct
                 ? fk::JoinKernels<Device>::count_direct(kExec, {dpk.get(), dpm.get(), np}, {dbk.get(), dbm.get(), nb},
                                                         0, static_cast<U64>(nb * 2), kind, dws.get())
                 : fk::JoinKernels<Device>::count(kExec, {dp, dpm.get(), np}, {db, dbm.get(), nb}, 1, nullptr, kind,
                                                  dws.get());
    if (!dpi) {
      dpi = std::make_unique<Dev<I64>>(static_cast<std::size_t>(dpairs));
      dbi = std::make_unique<Dev<I64>>(static_cast<std::size_t>(dpairs));
    }
    fk::JoinKernels<Device>::fill(kExec, np, nb, kind, dws.get(), dpairs, dpi->get(), dbi->get());
  };
  run();
  const auto pa = dpi->host(static_cast<std::size_t>(dpairs)), ba = dbi->host(static_cast<std::size_t>(dpairs));
  run();
  compare(o, opt, "probe rows", rpi, pa, dpi->host(static_cast<std::size_t>(dpairs)));
  compare(o, opt, "build rows", rbi, ba, dbi->host(static_cast<std::size_t>(dpairs)));
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(np + nb) * 9 + static_cast<double>(pairs) * 16;
  return o;
}

Outcome rolling(I64 n, const Options& opt, bool time_window) {
  Outcome o;
  std::vector<double> x = mixed(n + 999, 60);
  for (std::size_t i = 0; i < x.size(); ++i)  // +-inf: missing for all but count, as NaN is
    if (hh(62, static_cast<I64>(i)) % 89 == 7) x[i] = i % 2 ? HUGE_VAL : -HUGE_VAL;
  std::vector<I64> t(static_cast<std::size_t>(n + 999));
  I64 now = 0;
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = now += static_cast<I64>(hh(61, static_cast<I64>(i)) % 4'000'000);
  const Dev<double> dx(x);
  const Dev<I64> dt(t);
  const auto un = static_cast<std::size_t>(n);
  Dev<double> dout(un);
  for (fk::RollingKind op : {fk::RollingKind::mean, fk::RollingKind::sum, fk::RollingKind::min, fk::RollingKind::max,
                             fk::RollingKind::std, fk::RollingKind::count}) {
    std::vector<double> ref(un);
    auto host_run = [&] {
      if (time_window)
        fk::RollingKernels<Reference>::time(kExec, t.data(), x.data(), 999, n, 3'600'000'000, 1, op, ref.data());
      else
        fk::RollingKernels<Reference>::rows(kExec, x.data(), 999, n, 1000, 500, op, ref.data());
    };
    auto run = [&] {
      if (time_window)
        fk::RollingKernels<Device>::time(kExec, dt.get(), dx.get(), 999, n, 3'600'000'000, 1, op, dout.get());
      else
        fk::RollingKernels<Device>::rows(kExec, dx.get(), 999, n, 1000, 500, op, dout.get());
    };
    if (opt.compare) host_run();
    run();
    const auto a = dout.host();
    run();
    compare(o, opt, "op " + std::to_string(static_cast<int>(op)), ref, a, dout.host());
    const double s = timed(opt, run);
    if (s >= 0) o.seconds = std::max(o.seconds, s);  // the slowest aggregation
  }
  o.bytes = static_cast<double>(n) * (time_window ? 24 : 16);
  return o;
}

// ---- frames: key decoding, join output, expressions ------------------------------------------------------

Outcome key_decode(I64 n, const Options& opt, bool packed, bool dropna) {
  Outcome o;
  const Keys keys(n, packed, dropna);
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  const auto un = std::max<std::size_t>(static_cast<std::size_t>(n), 1);
  const ElementType types[2] = {ElementType::int64, ElementType::string};
  std::vector<const U64*> hw;
  for (const auto& w : words) hw.push_back(w.data());
  std::vector<I64> rk(un);
  std::vector<std::int32_t> rs(un);
  std::vector<U8> rkv(un), rsv(un);
  void* rout[2] = {rk.data(), rs.data()};
  U8* rvalid[2] = {rkv.data(), rsv.data()};
  fk::KeyKernels<Reference>::decode(kExec, hw.data(), keys.layout, types, n, rout, dropna ? nullptr : rvalid);
  std::vector<std::unique_ptr<Dev<U64>>> dw;
  std::vector<const U64*> dwp;
  for (const auto& w : words) {
    dw.push_back(std::make_unique<Dev<U64>>(w));
    dwp.push_back(dw.back()->get());
  }
  Dev<I64> dk(un);
  Dev<std::int32_t> ds(un);
  Dev<U8> dkv(un), dsv(un);
  void* dout[2] = {dk.get(), ds.get()};
  U8* dvalid[2] = {dkv.get(), dsv.get()};
  auto run = [&] {
    fk::KeyKernels<Device>::decode(kExec, dwp.data(), keys.layout, types, n, dout, dropna ? nullptr : dvalid);
  };
  run();
  const auto ka = dk.host(static_cast<std::size_t>(n));
  const auto sa = ds.host(static_cast<std::size_t>(n));
  run();
  rk.resize(static_cast<std::size_t>(n));
  rs.resize(static_cast<std::size_t>(n));
  compare(o, opt, "int64 keys", rk, ka, dk.host(static_cast<std::size_t>(n)));
  compare(o, opt, "string keys", rs, sa, ds.host(static_cast<std::size_t>(n)));
  if (!dropna) {
    rkv.resize(static_cast<std::size_t>(n));
    compare(o, opt, "key validity", rkv, dkv.host(static_cast<std::size_t>(n)), dkv.host(static_cast<std::size_t>(n)));
  }
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (words.size() * 8 + 8 + 4 + (dropna ? 0 : 2));
  return o;
}

Outcome join_gather(I64 n, const Options& opt) {
  Outcome o;
  const auto un = std::max<std::size_t>(static_cast<std::size_t>(n), 1);
  const std::vector<double> x = mixed(n, 30);
  const std::vector<U8> m = valid(n, 31, 6);
  const std::vector<std::int32_t> s = codes(n, 32, 40);
  std::vector<I64> remap(40), pi(un), bi(un);
  for (I64 c = 0; c < 40; ++c) remap[static_cast<std::size_t>(c)] = 2 * c + 1;
  for (I64 i = 0; i < n; ++i) {
    pi[i] = hh(33, i) % 7 == 0 ? -1 : static_cast<I64>(hh(34, i) % static_cast<U64>(n));
    bi[i] = hh(35, i) % 5 == 0 ? -1 : static_cast<I64>(hh(36, i) % static_cast<U64>(n));
  }
  std::vector<double> rx(un);
  std::vector<std::int32_t> rs(un);
  std::vector<U8> rxv(un), rsv(un);
  const fk::JoinSource hx{host_view(ElementType::float64, x, &m)}, hs{host_view(ElementType::string, s), remap.data()};
  fk::JoinKernels<Reference>::gather(kExec, hx, pi.data(), nullptr, nullptr, n, rx.data(), rxv.data());
  fk::JoinKernels<Reference>::gather(kExec, hs, pi.data(), &hs, bi.data(), n, rs.data(), rsv.data());
  const bool rmiss = fk::JoinKernels<Reference>::any_missing(kExec, pi.data(), n);
  const DevColumn dx(ElementType::float64, x, &m), ds(ElementType::string, s);
  const Dev<I64> dremap(remap), dpi(pi), dbi(bi);
  const fk::JoinSource jx{dx.view()}, js{ds.view(), dremap.get()};
  Dev<double> ox(un);
  Dev<std::int32_t> os(un);
  Dev<U8> oxv(un), osv(un);
  bool miss = false;
  auto run = [&] {
    fk::JoinKernels<Device>::gather(kExec, jx, dpi.get(), nullptr, nullptr, n, ox.get(), oxv.get());
    fk::JoinKernels<Device>::gather(kExec, js, dpi.get(), &js, dbi.get(), n, os.get(), osv.get());
    miss = fk::JoinKernels<Device>::any_missing(kExec, dpi.get(), n);
  };
  run();
  const auto xa = ox.host(static_cast<std::size_t>(n));
  const auto sa = os.host(static_cast<std::size_t>(n));
  run();
  rx.resize(static_cast<std::size_t>(n));
  rs.resize(static_cast<std::size_t>(n));
  rxv.resize(static_cast<std::size_t>(n));
  compare(o, opt, "float64 values", rx, xa, ox.host(static_cast<std::size_t>(n)));
  compare(o, opt, "float64 validity", rxv, oxv.host(static_cast<std::size_t>(n)),
          oxv.host(static_cast<std::size_t>(n)));
  compare(o, opt, "remapped codes", rs, sa, os.host(static_cast<std::size_t>(n)));
  compare(o, opt, "any_missing", std::vector<int>{rmiss}, std::vector<int>{miss}, std::vector<int>{miss});
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 8 + 8 + 1 + 4 + 4 + 8 + 1 + 1);
  return o;
}

/// clip(where(x > 0.25, sqrt(x) * z + 3, z // 7), -100, 3) over a float column (NaN, -0.0) and a masked int64
/// column (sqrt: correctly rounded on both sides, unlike log and exp).
fk::ExprProgram expr_program(const fk::ColumnView& x, const fk::ColumnView& z) {
  fk::ExprProgram p;
  using Op = fk::ExprStepOp;
  using K = fk::ExprKind;
  auto step = [&](Op op, K kind, int a = -1, int b = -1, int c = -1, std::uint8_t sub = 0, std::uint8_t mode = 0,
                  U64 bits = 0) {
    fk::ExprStep s;
    s.op = op, s.kind = kind, s.a = static_cast<std::int16_t>(a), s.b = static_cast<std::int16_t>(b);
    s.c = static_cast<std::int16_t>(c), s.sub = sub, s.mode = mode, s.bits = bits;
    p.steps[p.nsteps] = s;
    return p.nsteps++;
  };
  p.columns[0] = x, p.columns[1] = z, p.ncolumns = 2;
  const int cx = step(Op::column, K::float64, -1, -1, -1, 0, 0, 0);
  const int cz = step(Op::column, K::int64, -1, -1, -1, 0, 0, 1);
  const int quarter = step(Op::literal, K::float64, -1, -1, -1, 0, 0, 0x3FD0000000000000ull);
  const int cond = step(Op::compare, K::boolean, cx, quarter, -1, 4, 2);
  const int lg = step(Op::math, K::float64, cx, -1, -1, 2);
  const int prod = step(Op::arith, K::float64, lg, cz, -1, 2);
  const int three = step(Op::literal, K::int64, -1, -1, -1, 0, 0, 3);
  const int sum = step(Op::arith, K::float64, prod, three, -1, 0);
  const int seven = step(Op::literal, K::int64, -1, -1, -1, 0, 0, 7);
  const int fd = step(Op::arith, K::int64, cz, seven, -1, 4);
  const int w = step(Op::where, K::float64, cond, sum, fd);
  const int lo = step(Op::literal, K::float64, -1, -1, -1, 0, 0, 0xC059000000000000ull);  // -100
  step(Op::clip, K::float64, w, lo, three);
  return p;
}

Outcome expr_evaluate(I64 n, const Options& opt) {
  Outcome o;
  const auto un = std::max<std::size_t>(static_cast<std::size_t>(n), 1);
  const std::vector<double> x = mixed(n, 40);
  const std::vector<I64> z = ints(n, 41, 1000, -500);
  const std::vector<U8> zm = valid(n, 42, 7);
  std::vector<double> ref(un);
  std::vector<U8> rv(un);
  const I64 rbad = fk::ExprKernels<Reference>::evaluate(
      kExec, expr_program(host_view(ElementType::float64, x), host_view(ElementType::int64, z, &zm)), n,
      ElementType::float64, ref.data(), rv.data());
  const DevColumn dx(ElementType::float64, x), dz(ElementType::int64, z, &zm);
  const fk::ExprProgram dp = expr_program(dx.view(), dz.view());
  Dev<double> out(un);
  Dev<U8> ov(un);
  I64 bad = 0;
  auto run = [&] { bad = fk::ExprKernels<Device>::evaluate(kExec, dp, n, ElementType::float64, out.get(), ov.get()); };
  run();
  const auto a = out.host(static_cast<std::size_t>(n));
  run();
  ref.resize(static_cast<std::size_t>(n));
  rv.resize(static_cast<std::size_t>(n));
  compare(o, opt, "values", ref, a, out.host(static_cast<std::size_t>(n)));
  compare(o, opt, "validity", rv, ov.host(static_cast<std::size_t>(n)), ov.host(static_cast<std::size_t>(n)));
  compare(o, opt, "invalid rows", std::vector<I64>{rbad}, std::vector<I64>{bad}, std::vector<I64>{bad});
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (8 + 8 + 1 + 8 + 1);
  return o;
}

// resample: the times' bounds (a mask, a step back now and then), every row's bin, and the filled bins of a
// partition holding every third bin (the rest empty: NaN, valid).
Outcome resample(I64 n, const Options& opt) {
  Outcome o;
  constexpr I64 minute = 60'000'000'000, origin = 946684800000000000;
  std::vector<I64> t(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) t[i] = origin + 90 * 60'000'000'000 + i * minute - (i % 97 == 5 ? 45 * minute : 0);
  const std::vector<U8> tm = valid(n, 66, 7);
  const DevColumn dt(ElementType::timestamp, t, &tm);
  auto flat = [](const fk::TimeBounds& b) {
    return std::vector<I64>{b.any, b.min, b.first, b.last, b.sorted, b.nulls};
  };
  const auto ref_bounds =
      flat(fk::ResampleKernels<Reference>::bounds(kExec, host_view(ElementType::timestamp, t, &tm), n));
  compare(o, opt, "resample bounds", ref_bounds, flat(fk::ResampleKernels<Device>::bounds(kExec, dt.view(), n)),
          flat(fk::ResampleKernels<Device>::bounds(kExec, dt.view(), n)));
  std::vector<I64> ref_bins(static_cast<std::size_t>(n));
  fk::ResampleKernels<Reference>::bins(kExec, host_view(ElementType::timestamp, t, &tm), n, origin, 7 * minute,
                                       ref_bins.data());
  const Dev<I64> bins(static_cast<std::size_t>(n));
  auto bin_run = [&] {
    fk::ResampleKernels<Device>::bins(kExec, dt.view(), n, origin, 7 * minute, bins.get());
    return bins.host();
  };
  const auto bins_a = bin_run();
  compare(o, opt, "resample bins", ref_bins, bins_a, bin_run());
  // A partition of groupby's result: every third of m bins, with a float column (NaN, -0.0, a mask).
  const I64 m = n, g = (n + 2) / 3;
  std::vector<I64> keys(static_cast<std::size_t>(g));
  for (I64 k = 0; k < g; ++k) keys[k] = origin + 3 * k * minute;
  const std::vector<double> x = mixed(g, 67);
  const std::vector<U8> xm = valid(g, 68, 4);
  const Dev<I64> dkeys(keys);
  const DevColumn dx(ElementType::float64, x, &xm);
  const U64 nan_bits = 0x7FF8000000000000ull;
  auto fill_ref = [&] {
    std::vector<I64> out_keys(static_cast<std::size_t>(m)), rows(static_cast<std::size_t>(m));
    const I64 present = fk::ResampleKernels<Reference>::bin_rows(kExec, keys.data(), g, origin, m, minute,
                                                                 out_keys.data(), rows.data());
    std::vector<double> out(static_cast<std::size_t>(m));
    std::vector<U8> out_valid(static_cast<std::size_t>(m));
    fk::ResampleKernels<Reference>::fill(kExec, host_view(ElementType::float64, x, &xm), rows.data(), m, nan_bits, true,
                                         out.data(), out_valid.data());
    out_keys.push_back(present);
    return std::make_tuple(out_keys, out, out_valid);
  };
  auto fill_dev = [&] {
    const Dev<I64> out_keys(static_cast<std::size_t>(m)), rows(static_cast<std::size_t>(m));
    const I64 present =
        fk::ResampleKernels<Device>::bin_rows(kExec, dkeys.get(), g, origin, m, minute, out_keys.get(), rows.get());
    const Dev<double> out(static_cast<std::size_t>(m));
    const Dev<U8> out_valid(static_cast<std::size_t>(m));
    fk::ResampleKernels<Device>::fill(kExec, dx.view(), rows.get(), m, nan_bits, true, out.get(), out_valid.get());
    std::vector<I64> k = out_keys.host();
    k.push_back(present);
    return std::make_tuple(k, out.host(), out_valid.host());
  };
  const auto [rk, rv, rm] = fill_ref();
  const auto [ak, av, am] = fill_dev();
  const auto [bk, bv, bm] = fill_dev();
  compare(o, opt, "resample bin rows", rk, ak, bk);
  compare(o, opt, "resample fill values", rv, av, bv);
  compare(o, opt, "resample fill mask", rm, am, bm);
  o.seconds = timed(opt, [&] { (void)bin_run(); });
  return o;
}

// groupby median/quantile: each half's values (holistic_rows), then both halves' per group of the whole input
// (holistic): sorted in the IEEE total order on both sides, so bitwise.
Outcome holistic(I64 n, const Options& opt) {
  Outcome o;
  const Keys keys(n, true, true);
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  const std::vector<double> y = mixed(n, 69);
  const std::vector<U8> ym = valid(n, 70, 6);
  const int bits[1] = {fk::bits_for(1000 * 50 - 1)};
  const auto un = std::max<std::size_t>(static_cast<std::size_t>(n), 1);
  std::vector<U64> gkey(un);
  std::vector<I64> gsize(un);
  U64* gk[1] = {gkey.data()};
  const U64* hw[1] = {words[0].data()};
  const I64 G = fk::GroupbyKernels<Reference>::aggregate(kExec, hw, 1, bits, n, keep.data(), nullptr, 0, 0,
                                                         {gk, gsize.data(), nullptr});
  const double what[3] = {-1.0, 0.25, 0.9};  // the median (holistic.hpp's kMedian), two quantiles
  const fk::ColumnView yc_host = host_view(ElementType::float64, y, &ym);
  // Reference: rows, then the per-group values.
  std::vector<U64> rw(un);
  std::vector<double> rv(un), ref(static_cast<std::size_t>(3 * std::max<I64>(G, 1)));
  U64* rwp[1] = {rw.data()};
  double* rvp[1] = {rv.data()};
  const I64 nr = fk::GroupbyKernels<Reference>::holistic_rows(kExec, hw, 1, n, keep.data(), &yc_host, 1, rwp, rvp);
  const U64* rwc[1] = {rw.data()};
  const U64* gkc[1] = {gkey.data()};
  fk::GroupbyKernels<Reference>::holistic(kExec, rwc, 1, bits, rv.data(), nr, gkc, G, what, 3, ref.data());
  const Dev<U64> dw(words[0]), dgk(gkey);
  const Dev<U8> dkeep(keep);
  const DevColumn dy(ElementType::float64, y, &ym);
  auto run = [&] {
    const Dev<U64> ow(un);
    const Dev<double> ov(un), out(static_cast<std::size_t>(3 * std::max<I64>(G, 1)));
    const U64* dwp[1] = {dw.get()};
    U64* owp[1] = {ow.get()};
    double* ovp[1] = {ov.get()};
    const fk::ColumnView yc = dy.view();
    const I64 m = fk::GroupbyKernels<Device>::holistic_rows(kExec, dwp, 1, n, dkeep.get(), &yc, 1, owp, ovp);
    const U64* owc[1] = {ow.get()};
    const U64* dgkc[1] = {dgk.get()};
    fk::GroupbyKernels<Device>::holistic(kExec, owc, 1, bits, ov.get(), m, dgkc, G, what, 3, out.get());
    std::vector<double> h = out.host(static_cast<std::size_t>(3 * G));
    h.push_back(static_cast<double>(m));
    return h;
  };
  std::vector<double> want(ref.begin(), ref.begin() + 3 * G);
  want.push_back(static_cast<double>(nr));
  compare(o, opt, "holistic median/quantiles", want, run(), run());
  o.seconds = timed(opt, [&] { (void)run(); });
  return o;
}

// ---- frames: the broadcast join, merge's hashes, windows within groups, the route back, column totals -------

constexpr I64 kI64Min = std::numeric_limits<I64>::min(), kI64Max = std::numeric_limits<I64>::max();

/// One join side's key as merge.cpp encodes it (two value words, unpacked, dropna): an int64 column with a mask
/// and its extremes (every 23rd probe row; the first three build rows only, which bounds the pairs), and a float64
/// column of duplicates from a pool with 0.0, -0.0 (the same key) and NaN (a null key: dropped).
struct JoinSideKeys {
  std::vector<std::vector<U64>> words;
  std::vector<U8> keep;
  JoinSideKeys(I64 n, U64 seed, I64 range, bool build)
      : words(2, std::vector<U64>(static_cast<std::size_t>(n))), keep(static_cast<std::size_t>(n)) {
    std::vector<I64> k = ints(n, seed, range);
    const std::vector<U8> km = valid(n, seed + 1, 17);
    std::vector<double> x(static_cast<std::size_t>(n));
    const double pool[8] = {0.0, -0.0, 1.5, -2.25, 0.0, 1.5, -0.0, std::nan("")};
    for (I64 i = 0; i < n; ++i) {
      const U64 r = hh(seed + 2, i);
      x[i] = pool[r % 8];
      if (build ? i < 3 : r / 8 % 23 == 0) k[i] = (build ? i != 1 : r / 184 % 2 == 1) ? kI64Max : kI64Min;
    }
    fk::KeyLayout layout;
    layout.ncols = 2;
    layout.dropna = true;
    const fk::KeyColumn kc[2] = {{host_view(ElementType::int64, k, &km)}, {host_view(ElementType::float64, x)}};
    U64* wp[2] = {words[0].data(), words[1].data()};
    if (n > 0) fk::KeyKernels<Reference>::encode(kExec, kc, layout, n, wp, keep.data());
  }
};

/// A prepared build side as numbers: its scalars, then each array's offset from `base` (prepared_at's layout) and
/// its defined contents (key words: the m sorted rows, their words, groups + 1 segment offsets; the direct array:
/// all n sorted rows, span + 1 table entries, n slots), read from `block`, a host copy of the memory at `base`.
std::vector<I64> prepared_contents(const fk::PreparedBuild& p, const std::byte* base,
                                   const std::vector<std::byte>& block) {
  std::vector<I64> out{p.n, p.width, static_cast<I64>(p.span), p.lo, p.m, p.groups};
  auto take = [&](const void* at, I64 count) {
    const I64 from = static_cast<const std::byte*>(at) - base;
    out.push_back(from);
    for (I64 i = 0; i < count; ++i) {
      I64 v = 0;
      std::memcpy(&v, block.data() + from + 8 * i, 8);
      out.push_back(v);
    }
  };
  if (p.direct()) {
    take(p.sorted, p.n);
    take(p.table, static_cast<I64>(p.span) + 1);
    take(p.slots, p.n);
  } else {
    take(p.sorted, p.m);
    for (int w = 0; w < p.width; ++w) take(p.words[w], p.m);
    take(p.offsets, p.groups + 1);
  }
  return out;
}

/// The broadcast join (merge.cpp's prepare_build_side once, then join_on_device for each probe task): the build
/// side prepared on the device into prepared_bytes at prepared_at, then two probe batches ([0, n/3) and the rest)
/// counted against it and filled, for inner, left and outer joins. The reference runs the join without a prepared
/// side (count / count_direct, which prepare into scratch) and prepares once itself: the pairs and the prepared
/// arrays and layout must be its. The callbacks: ref_prepare(p), ref_count(kind, first, len, workspace),
/// dev_prepare(p), dev_count(kind, first, len, p, workspace). The outer join of the whole probe is timed.
template <class RefPrepare, class RefCount, class DevPrepare, class DevCount>
Outcome broadcast_join(I64 np, I64 nb, int width, U64 span, const Options& opt, RefPrepare&& ref_prepare,
                       RefCount&& ref_count, DevPrepare&& dev_prepare, DevCount&& dev_count, double row_bytes) {
  using RJ = fk::JoinKernels<Reference>;
  using DJ = fk::JoinKernels<Device>;
  Outcome o;
  const fk::JoinSides kinds[3] = {{false, false}, {true, false}, {true, true}};
  const I64 cut = np / 3, first[2] = {0, cut}, len[2] = {cut, np - cut};
  auto append = [](std::vector<I64>& to, I64 pairs, const std::vector<I64>& pi, const std::vector<I64>& bi) {
    to.push_back(pairs);
    to.insert(to.end(), pi.begin(), pi.end());
    to.insert(to.end(), bi.begin(), bi.end());
  };
  std::vector<std::vector<I64>> ref(4);
  if (opt.compare) {
    const std::size_t bytes = RJ::prepared_bytes(nb, width, span);
    std::vector<U64> memory(bytes / 8 + 1);
    fk::PreparedBuild p = RJ::prepared_at(memory.data(), nb, width, span);
    ref_prepare(p);
    std::vector<std::byte> block(bytes);
    if (bytes) std::memcpy(block.data(), memory.data(), bytes);
    ref[0] = prepared_contents(p, reinterpret_cast<const std::byte*>(memory.data()), block);
    ref[0].push_back(static_cast<I64>(bytes));
    std::vector<U64> ws(RJ::workspace_bytes(np, nb) / 8 + 1);
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        const I64 pairs = ref_count(kinds[k], first[b], len[b], static_cast<void*>(ws.data()));
        std::vector<I64> pi(static_cast<std::size_t>(pairs)), bi(static_cast<std::size_t>(pairs));
        RJ::fill(kExec, len[b], nb, kinds[k], ws.data(), pairs, pi.data(), bi.data());
        append(ref[k + 1], pairs, pi, bi);
      }
  }
  const std::size_t bytes = DJ::prepared_bytes(nb, width, span);
  Dev<std::byte> memory(bytes), ws(DJ::workspace_bytes(np, nb));
  fk::PreparedBuild p;
  I64 outer_pairs = 0;
  auto run = [&] {
    std::vector<std::vector<I64>> out(4);
    p = DJ::prepared_at(memory.get(), nb, width, span);
    dev_prepare(p);
    out[0] = prepared_contents(p, memory.get(), memory.host());
    out[0].push_back(static_cast<I64>(bytes));
    outer_pairs = 0;
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        const I64 pairs = dev_count(kinds[k], first[b], len[b], p, static_cast<void*>(ws.get()));
        const Dev<I64> pi(static_cast<std::size_t>(pairs)), bi(static_cast<std::size_t>(pairs));
        DJ::fill(kExec, len[b], nb, kinds[k], ws.get(), pairs, pi.get(), bi.get());
        append(out[k + 1], pairs, pi.host(), bi.host());
        if (k == 2) outer_pairs += pairs;
      }
    return out;
  };
  const auto a = run(), b = run();
  const char* what[4] = {"prepared build side", "inner pairs", "left pairs", "outer pairs"};
  for (int k = 0; k < 4; ++k) compare(o, opt, what[k], ref[k], a[k], b[k]);
  std::unique_ptr<Dev<I64>> tpi, tbi;
  o.seconds = timed(opt, [&] {
    const I64 pairs = dev_count(kinds[2], 0, np, p, static_cast<void*>(ws.get()));
    if (!tpi) {
      tpi = std::make_unique<Dev<I64>>(static_cast<std::size_t>(pairs));
      tbi = std::make_unique<Dev<I64>>(static_cast<std::size_t>(pairs));
    }
    DJ::fill(kExec, np, nb, kinds[2], ws.get(), pairs, tpi->get(), tbi->get());
  });
  o.bytes = static_cast<double>(np) * row_bytes + static_cast<double>(nb) * 8 + static_cast<double>(outer_pairs) * 16;
  return o;
}

/// Key words: int64 extremes, duplicates, masked rows, -0.0 matching 0.0, NaN keys dropped; an empty build side
/// for n < 10 (the build side has n / 10 rows).
Outcome prepared_join_words(I64 n, const Options& opt) {
  const I64 np = n, nb = n / 10;
  const JoinSideKeys probe(np, 140, std::max<I64>(2 * nb, 1), false), build(nb, 150, std::max<I64>(2 * nb, 1), true);
  const int bits[2] = {64, 64};
  const U64* hb[2] = {build.words[0].data(), build.words[1].data()};
  const Dev<U64> dp0(probe.words[0]), dp1(probe.words[1]), db0(build.words[0]), db1(build.words[1]);
  const Dev<U8> dpk(probe.keep), dbk(build.keep);
  const U64* db[2] = {db0.get(), db1.get()};
  return broadcast_join(
      np, nb, 2, 0, opt,
      [&](fk::PreparedBuild& p) {
        fk::JoinKernels<Reference>::prepare(kExec, {hb, build.keep.data(), nb}, bits, p);
      },
      [&](fk::JoinSides kind, I64 first, I64 len, void* ws) {
        const U64* hp[2] = {probe.words[0].data() + first, probe.words[1].data() + first};
        return fk::JoinKernels<Reference>::count(kExec, {hp, probe.keep.data() + first, len},
                                                 {hb, build.keep.data(), nb}, 2, bits, kind, ws);
      },
      [&](fk::PreparedBuild& p) {
        fk::JoinKernels<Device>::prepare(kExec, {db, dbk.get(), nb}, bits, p);
      },
      [&](fk::JoinSides kind, I64 first, I64 len, const fk::PreparedBuild& p, void* ws) {
        const U64* dp[2] = {dp0.get() + first, dp1.get() + first};
        return fk::JoinKernels<Device>::count_prepared(kExec, {dp, dpk.get() + first, len}, p, kind, ws);
      },
      8 * 2 + 1);
}

/// The direct array over build keys up to INT64_MAX (lo = INT64_MAX - span + 1, both ends present, duplicates,
/// nulls); probe keys in the range, below lo, wrapped past INT64_MAX and INT64_MIN (matching nothing), nulls.
Outcome prepared_join_direct(I64 n, const Options& opt) {
  const I64 np = n, nb = std::max<I64>(n / 10, 1);
  const auto span = static_cast<U64>(2 * nb);
  const I64 lo = kI64Max - static_cast<I64>(span - 1);
  auto key = [lo](U64 offset) { return static_cast<I64>(static_cast<U64>(lo) + offset); };  // wraps past INT64_MAX
  std::vector<I64> bk(static_cast<std::size_t>(nb)), pk(static_cast<std::size_t>(np));
  for (I64 i = 0; i < nb; ++i) bk[i] = i == 0 ? kI64Max : i == 1 ? lo : key(hh(160, i) % span);
  for (I64 i = 0; i < np; ++i) {
    const U64 r = hh(161, i);
    pk[i] = r % 13 == 0 ? kI64Min : r % 13 == 1 ? lo - 1 : r % 13 == 2 ? key(span + r / 13 % 7) : key(r / 13 % span);
  }
  const std::vector<U8> bm = valid(nb, 162, 11), pm = valid(np, 163, 19);
  const Dev<I64> dbk(bk), dpk(pk);
  const Dev<U8> dbm(bm), dpm(pm);
  return broadcast_join(
      np, nb, 0, span, opt,
      [&](fk::PreparedBuild& p) {
        fk::JoinKernels<Reference>::prepare_direct(kExec, {bk.data(), bm.data(), nb}, lo, p);
      },
      [&](fk::JoinSides kind, I64 first, I64 len, void* ws) {
        return fk::JoinKernels<Reference>::count_direct(kExec, {pk.data() + first, pm.data() + first, len},
                                                        {bk.data(), bm.data(), nb}, lo, span, kind, ws);
      },
      [&](fk::PreparedBuild& p) {
        fk::JoinKernels<Device>::prepare_direct(kExec, {dbk.get(), dbm.get(), nb}, lo, p);
      },
      [&](fk::JoinSides kind, I64 first, I64 len, const fk::PreparedBuild& p, void* ws) {
        return fk::JoinKernels<Device>::count_prepared_direct(kExec, {dpk.get() + first, dpm.get() + first, len}, p,
                                                              kind, ws);
      },
      8 + 1);
}

// merge's key sample and hot keys, and groupby's record hashes: the row hash of every stride-th row (strides 1, 3
// and 4096) of an int64 key (extremes, a mask), string codes (nulls) and float64 duplicates (0.0 and -0.0 alike,
// NaN the null word); the rows of hot hashes replicated from each side (hot_rows, on the device's own row hashes as
// hot_rows_of_side computes them: few distinct keys, so every hot hash has many rows); word_hashes of one packed
// word (route_hash) and of four words with null flags.
Outcome hash_sample_hot_rows_word_hashes(I64 n, const Options& opt) {
  Outcome o;
  const auto un = static_cast<std::size_t>(n);
  using RP = fk::PartitionKernels<Reference>;
  using DP = fk::PartitionKernels<Device>;
  std::vector<I64> k = ints(n, 170, 8);
  std::vector<double> x(un);
  const double pool[4] = {0.0, -0.0, std::nan(""), 2.5};
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(171, i);
    if (r % 29 == 0) k[i] = r % 2 ? kI64Min : kI64Max;
    x[i] = pool[r / 29 % 4];
  }
  const std::vector<U8> km = valid(n, 172, 31);
  const std::vector<std::int32_t> s = codes(n, 173, 3);
  std::vector<U64> dict(3);
  for (int c = 0; c < 3; ++c) dict[c] = hh(174, c);
  const fk::HashColumn hc[3] = {{host_view(ElementType::int64, k, &km)},
                                {host_view(ElementType::string, s), dict.data()},
                                {host_view(ElementType::float64, x)}};
  const I64 strides[3] = {1, 3, 4096};
  auto sampled = [n](I64 stride) { return static_cast<std::size_t>((n + stride - 1) / stride); };
  const Keys packed(n, true, true), wide(n, false, false);
  std::vector<U8> keep;
  const auto pw = host_words(packed, n, keep), ww = host_words(wide, n, keep);
  // Reference.
  std::vector<std::vector<U64>> ref;
  for (I64 stride : strides) {
    ref.emplace_back(sampled(stride));
    RP::hash_sample(kExec, hc, 3, n, stride, ref.back().data());
  }
  std::vector<U64> hot;  // the hashes of three rows (duplicates among them merge), and one no row has
  for (I64 i : {I64{0}, n / 3, n - 1})
    if (i >= 0 && i < n) hot.push_back(ref[0][static_cast<std::size_t>(i)]);
  hot.push_back(0x5EED);
  std::sort(hot.begin(), hot.end());
  hot.erase(std::unique(hot.begin(), hot.end()), hot.end());
  std::vector<U8> side(hot.size());
  for (std::size_t h = 0; h < hot.size(); ++h) side[h] = static_cast<U8>(h % 2);
  const auto nhot = static_cast<I64>(hot.size());
  std::vector<std::vector<I64>> ref_hot(2, std::vector<I64>(un));
  for (int sd = 0; sd < 2; ++sd) {
    const I64 kept = RP::hot_rows(kExec, ref[0].data(), n, hot.data(), side.data(), nhot, sd, ref_hot[sd].data());
    ref_hot[sd].resize(static_cast<std::size_t>(kept));
  }
  std::vector<U64> ref_one(un), ref_four(un);
  const U64* hp[1] = {pw[0].data()};
  std::vector<const U64*> hw;
  for (const auto& w : ww) hw.push_back(w.data());
  RP::word_hashes(kExec, hp, 1, n, ref_one.data());
  RP::word_hashes(kExec, hw.data(), 4, n, ref_four.data());
  // Device.
  const DevColumn dk(ElementType::int64, k, &km), ds(ElementType::string, s), dx(ElementType::float64, x);
  const Dev<U64> ddict(dict), dhot(hot);
  const Dev<U8> dside(side);
  const fk::HashColumn dc[3] = {{dk.view()}, {ds.view(), ddict.get()}, {dx.view()}};
  std::vector<std::unique_ptr<Dev<U64>>> dh;
  for (I64 stride : strides) dh.push_back(std::make_unique<Dev<U64>>(sampled(stride)));
  Dev<I64> drows0(un), drows1(un);
  I64 kept[2] = {0, 0};
  const Dev<U64> dpw(pw[0]);
  std::vector<std::unique_ptr<Dev<U64>>> dww;
  std::vector<const U64*> dwp;
  for (const auto& w : ww) {
    dww.push_back(std::make_unique<Dev<U64>>(w));
    dwp.push_back(dww.back()->get());
  }
  const U64* dp1[1] = {dpw.get()};
  Dev<U64> done(un), dfour(un);
  auto run = [&] {
    for (int j = 0; j < 3; ++j) DP::hash_sample(kExec, dc, 3, n, strides[j], dh[static_cast<std::size_t>(j)]->get());
    kept[0] = DP::hot_rows(kExec, dh[0]->get(), n, dhot.get(), dside.get(), nhot, 0, drows0.get());
    kept[1] = DP::hot_rows(kExec, dh[0]->get(), n, dhot.get(), dside.get(), nhot, 1, drows1.get());
    DP::word_hashes(kExec, dp1, 1, n, done.get());
    DP::word_hashes(kExec, dwp.data(), 4, n, dfour.get());
  };
  auto pull = [&] {
    std::vector<std::vector<U64>> h;
    for (auto& d : dh) h.push_back(d->host());
    std::vector<std::vector<I64>> r{drows0.host(static_cast<std::size_t>(kept[0])),
                                    drows1.host(static_cast<std::size_t>(kept[1]))};
    return std::make_tuple(h, r, done.host(), dfour.host());
  };
  run();
  const auto [ha, ra, oa, fa] = pull();
  run();
  const auto [hb, rb, ob, fb] = pull();
  for (std::size_t j = 0; j < 3; ++j)
    compare(o, opt, "hash_sample stride " + std::to_string(strides[j]), ref[j], ha[j], hb[j]);
  compare(o, opt, "hot_rows side 0", ref_hot[0], ra[0], rb[0]);
  compare(o, opt, "hot_rows side 1", ref_hot[1], ra[1], rb[1]);
  compare(o, opt, "word_hashes 1 word", ref_one, oa, ob);
  compare(o, opt, "word_hashes 4 words", ref_four, fa, fb);
  o.seconds = timed(opt, run);
  // Per row: the sampled rows' key columns and hashes (strides 1 and 3), the hashes read twice by hot_rows, the
  // word hashes' words and outputs.
  o.bytes = static_cast<double>(n) * ((8 + 1 + 4 + 8 + 8) * (1 + 1.0 / 3) + 2 * 8 + (8 + 8) + (4 * 8 + 8));
  return o;
}

// group_transform's rolling (RollingKernels::groups) over groups of 1 row, of 2 to 41 rows and of 300 to 599 rows
// (across kRollingRun's runs), floats with NaN, -0.0 and infinities, every aggregation on a 4-row window (min
// periods 2) and std and mean on a 300-row one; and where a time window's carry and halo start (time_carry_start,
// first_after) over sorted timestamps with repeats, at spans and bounds from 1 ns to past either end (INT64_MIN,
// INT64_MAX).
Outcome rolling_groups_carry(I64 n, const Options& opt) {
  Outcome o;
  const auto un = static_cast<std::size_t>(n);
  using RR = fk::RollingKernels<Reference>;
  using DR = fk::RollingKernels<Device>;
  std::vector<double> x = mixed(n, 180);
  for (I64 i = 0; i < n; ++i)
    if (hh(181, i) % 83 == 5) x[i] = i % 2 ? HUGE_VAL : -HUGE_VAL;
  std::vector<I64> offsets{0};
  for (I64 at = 0, g = 0; at < n; ++g) {
    const U64 r = hh(182, g);
    at = std::min<I64>(n, at + static_cast<I64>(r % 4 == 0 ? 1 : r % 4 == 1 ? 300 + r / 4 % 300 : 2 + r / 4 % 40));
    offsets.push_back(at);
  }
  const auto groups = static_cast<I64>(offsets.size()) - 1;
  struct Window {
    fk::RollingKind op;
    I64 window, min_periods;
  };
  using K = fk::RollingKind;
  const Window windows[] = {{K::mean, 4, 2}, {K::sum, 4, 2},   {K::min, 4, 2},   {K::max, 4, 2},
                            {K::std, 4, 2},  {K::count, 4, 2}, {K::std, 300, 1}, {K::mean, 300, 1}};
  std::vector<I64> t(un);
  I64 now = 1'700'000'000'000'000'000;
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(183, i);
    t[i] = now += r % 3 == 0 ? 0 : static_cast<I64>(r % 5'000'000'000);  // repeated timestamps
  }
  const I64 t0 = n ? t.front() : now, t1 = n ? t.back() : now;
  const I64 bounds[] = {kI64Min, t0 - 1, t0, n ? t[un / 2] : now, t1 - 1, t1, kI64Max};
  const I64 spans[] = {1, 3'600'000'000'000, t1 - t0 + 1, kI64Max / 2};
  auto searches = [&](auto tag, const I64* tp) {
    using R = fk::RollingKernels<typename decltype(tag)::type>;
    std::vector<I64> v;
    for (I64 b : bounds) v.push_back(R::first_after(kExec, tp, n, b));
    for (I64 s : spans) v.push_back(R::time_carry_start(kExec, tp, n, s));
    for (I64 s : spans) v.push_back(R::time_carry_start(kExec, tp + un / 2, n - n / 2, s));  // a later piece
    return v;
  };
  std::vector<std::vector<double>> ref;
  for (const Window& w : windows) {
    ref.emplace_back(un);
    if (opt.compare)
      RR::groups(kExec, x.data(), offsets.data(), groups, n, w.window, w.min_periods, w.op, ref.back().data());
  }
  const std::vector<I64> ref_search = searches(std::type_identity<Reference>{}, t.data());
  const Dev<double> dx(x);
  const Dev<I64> doff(offsets), dt(t);
  std::vector<std::unique_ptr<Dev<double>>> dout;
  for (std::size_t w = 0; w < std::size(windows); ++w) dout.push_back(std::make_unique<Dev<double>>(un));
  auto run = [&] {
    for (std::size_t w = 0; w < std::size(windows); ++w)
      DR::groups(kExec, dx.get(), doff.get(), groups, n, windows[w].window, windows[w].min_periods, windows[w].op,
                 dout[w]->get());
  };
  run();
  std::vector<std::vector<double>> a;
  for (auto& d : dout) a.push_back(d->host());
  run();
  for (std::size_t w = 0; w < std::size(windows); ++w)
    compare(
        o, opt,
        "groups op " + std::to_string(static_cast<int>(windows[w].op)) + " window " + std::to_string(windows[w].window),
        ref[w], a[w], dout[w]->host());
  compare(o, opt, "first_after / time_carry_start", ref_search, searches(std::type_identity<Device>{}, dt.get()),
          searches(std::type_identity<Device>{}, dt.get()));
  o.seconds = timed(opt, [&] { DR::groups(kExec, dx.get(), doff.get(), groups, n, 4, 2, K::mean, dout[0]->get()); });
  o.bytes = static_cast<double>(n) * 16;
  return o;
}

// group_transform's tag step, route back and scatter (transform_device.cpp): the kept rows of 2-word keys with null
// keys dropped (tag_rows: key words, global row numbers from 2^40, a masked int64 value with its extremes, an
// unmasked float64 with NaN and -0.0, no value); those rows in another order routed back to the non-empty
// partitions that own them (return_buckets over starts from 0, ids with gaps); then scattered into their
// partition: int64 results with a mask over the whole range (the dropped rows stay null), float64 over a
// sub-range (rows outside it skipped), string codes with nulls.
Outcome tag_route_scatter(I64 n, const Options& opt) {
  Outcome o;
  const auto un = static_cast<std::size_t>(n);
  using RT = fk::TransformKernels<Reference>;
  using DT = fk::TransformKernels<Device>;
  const Keys keys(n, false, true);
  std::vector<U8> keep;
  const auto words = host_words(keys, n, keep);
  std::vector<I64> rows(un);
  const I64 k = fk::GatherKernels<Reference>::select_rows(kExec, keep.data(), n, rows.data());
  const auto uk = static_cast<std::size_t>(k);
  const I64 first_row = I64{1} << 40;
  std::vector<I64> iv = ints(n, 190, 2001, -1000);
  for (I64 i = 0; i < n; ++i)
    if (hh(191, i) % 17 == 0) iv[i] = i % 2 ? kI64Min : kI64Max;
  const std::vector<U8> im = valid(n, 192, 6);
  const std::vector<double> y = mixed(n, 193);
  // The route back: buckets from 0 (earlier partitions) and over this one's rows, empty ones left out, as
  // group_transform builds them.
  std::vector<I64> starts{0};
  std::vector<std::uint32_t> ids{3};
  for (I64 at = first_row, j = 1; at < first_row + n; ++j) {
    const I64 len = static_cast<I64>(hh(194, j) % 1500);
    if (len == 0) continue;
    starts.push_back(at);
    ids.push_back(static_cast<std::uint32_t>(4 * j + 1));
    at += len;
  }
  const auto nb = static_cast<I64>(starts.size());
  // Scatter inputs: k routed rows, int64 values with extremes and a mask, floats, string codes.
  std::vector<I64> sv = ints(k, 195, 1000);
  for (I64 i = 0; i < k; ++i)
    if (hh(196, i) % 11 == 0) sv[i] = i % 2 ? kI64Min : kI64Max;
  const std::vector<U8> svm = valid(k, 197, 5);
  const std::vector<double> sf = mixed(k, 198);
  const std::vector<std::int32_t> sc = codes(k, 199, 12);
  const I64 sub0 = first_row + n / 4, subm = n / 2;
  // Reference: tag (a masked int64 value, a float64 one, none), route the tagged rows reversed (a computed
  // partition's key order), scatter.
  const U64* hw[2] = {words[0].data(), words[1].data()};
  const fk::ColumnView hiv = host_view(ElementType::int64, iv, &im), hy = host_view(ElementType::float64, y);
  std::vector<std::vector<U64>> rw(6, std::vector<U64>(uk));
  std::vector<std::vector<I64>> rrow(3, std::vector<I64>(uk));
  std::vector<I64> rval(uk);
  std::vector<double> rfval(uk);
  std::vector<U8> rvalid(uk);
  U64* rwp[3][2] = {{rw[0].data(), rw[1].data()}, {rw[2].data(), rw[3].data()}, {rw[4].data(), rw[5].data()}};
  RT::tag_rows(kExec, hw, 2, rows.data(), k, first_row, &hiv, rwp[0], rrow[0].data(), rval.data(), rvalid.data());
  RT::tag_rows(kExec, hw, 2, rows.data(), k, first_row, &hy, rwp[1], rrow[1].data(), rfval.data(), nullptr);
  RT::tag_rows(kExec, hw, 2, rows.data(), k, first_row, nullptr, rwp[2], rrow[2].data(), nullptr, nullptr);
  const std::vector<I64> back(rrow[0].rbegin(), rrow[0].rend());
  std::vector<std::uint32_t> rbucket(uk);
  RT::return_buckets(kExec, back.data(), k, starts.data(), ids.data(), nb, rbucket.data());
  std::vector<I64> rsi(un);
  std::vector<double> rsf(static_cast<std::size_t>(subm));
  std::vector<std::int32_t> rsc(un);
  std::vector<U8> rsim(un), rscm(un);
  using SV = fk::SegmentValues;
  using SR = fk::SegmentResult;
  auto bytes_of = [](const auto& v) { return reinterpret_cast<const std::byte*>(v.data()); };
  auto out_of = [](auto& v) { return reinterpret_cast<std::byte*>(v.data()); };
  RT::scatter(kExec, back.data(), k, SV{ElementType::int64, bytes_of(sv), svm.data()}, first_row, n,
              SR{ElementType::int64, out_of(rsi), rsim.data()});
  RT::scatter(kExec, back.data(), k, SV{ElementType::float64, bytes_of(sf), nullptr}, sub0, subm,
              SR{ElementType::float64, out_of(rsf), nullptr});
  RT::scatter(kExec, back.data(), k, SV{ElementType::string, bytes_of(sc), nullptr}, first_row, n,
              SR{ElementType::string, out_of(rsc), rscm.data()});
  // Device.
  const Dev<U64> dw0(words[0]), dw1(words[1]);
  const U64* dw[2] = {dw0.get(), dw1.get()};
  const Dev<I64> drows(rows), dback(back), dstarts(starts), dsv(sv);
  const Dev<std::uint32_t> dids(ids);
  const DevColumn div(ElementType::int64, iv, &im), dy(ElementType::float64, y);
  const fk::ColumnView div_view = div.view(), dy_view = dy.view();
  const Dev<U8> dsvm(svm);
  const Dev<double> dsf(sf);
  const Dev<std::int32_t> dsc(sc);
  std::vector<std::unique_ptr<Dev<U64>>> tw;
  for (int w = 0; w < 6; ++w) tw.push_back(std::make_unique<Dev<U64>>(uk));
  U64* twp[3][2] = {{tw[0]->get(), tw[1]->get()}, {tw[2]->get(), tw[3]->get()}, {tw[4]->get(), tw[5]->get()}};
  Dev<I64> trow0(uk), trow1(uk), trow2(uk), tval(uk), osi(un);
  Dev<double> tfval(uk), osf(static_cast<std::size_t>(subm));
  Dev<U8> tvalid(uk), osim(un), oscm(un);
  Dev<std::uint32_t> obucket(uk);
  Dev<std::int32_t> osc(un);
  auto tag = [&] {
    DT::tag_rows(kExec, dw, 2, drows.get(), k, first_row, &div_view, twp[0], trow0.get(), tval.get(), tvalid.get());
  };
  auto route_scatter = [&] {
    DT::return_buckets(kExec, dback.get(), k, dstarts.get(), dids.get(), nb, obucket.get());
    DT::scatter(kExec, dback.get(), k,
                SV{ElementType::int64, reinterpret_cast<const std::byte*>(dsv.get()), dsvm.get()}, first_row, n,
                SR{ElementType::int64, reinterpret_cast<std::byte*>(osi.get()), osim.get()});
  };
  auto run = [&] {
    tag();
    DT::tag_rows(kExec, dw, 2, drows.get(), k, first_row, &dy_view, twp[1], trow1.get(), tfval.get(), nullptr);
    DT::tag_rows(kExec, dw, 2, drows.get(), k, first_row, nullptr, twp[2], trow2.get(), nullptr, nullptr);
    route_scatter();
    DT::scatter(kExec, dback.get(), k, SV{ElementType::float64, reinterpret_cast<const std::byte*>(dsf.get()), nullptr},
                sub0, subm, SR{ElementType::float64, reinterpret_cast<std::byte*>(osf.get()), nullptr});
    DT::scatter(kExec, dback.get(), k, SV{ElementType::string, reinterpret_cast<const std::byte*>(dsc.get()), nullptr},
                first_row, n, SR{ElementType::string, reinterpret_cast<std::byte*>(osc.get()), oscm.get()});
  };
  auto pull = [&] {
    std::vector<std::vector<U64>> w;
    for (auto& d : tw) w.push_back(d->host());
    return std::make_tuple(
        w, std::vector<std::vector<I64>>{trow0.host(), trow1.host(), trow2.host(), tval.host(), osi.host()},
        std::vector<std::vector<U8>>{tvalid.host(), osim.host(), oscm.host()}, tfval.host(), osf.host(), obucket.host(),
        osc.host());
  };
  run();
  const auto [wa, ia, ma, fa, sfa, ba, ca] = pull();
  run();
  const auto [wb, ib, mb, fb, sfb, bb, cb] = pull();
  const char* tags[3] = {"tag_rows (int64 value)", "tag_rows (float64 value)", "tag_rows (no value)"};
  for (int t = 0; t < 3; ++t) {
    for (int w = 0; w < 2; ++w)
      compare(o, opt, std::string(tags[t]) + " word " + std::to_string(w), rw[2 * t + w], wa[2 * t + w], wb[2 * t + w]);
    compare(o, opt, std::string(tags[t]) + " rows", rrow[t], ia[t], ib[t]);
  }
  compare(o, opt, "tag_rows int64 values", rval, ia[3], ib[3]);
  compare(o, opt, "tag_rows int64 validity", rvalid, ma[0], mb[0]);
  compare(o, opt, "tag_rows float64 values", rfval, fa, fb);
  compare(o, opt, "return_buckets", rbucket, ba, bb);
  compare(o, opt, "scatter int64", rsi, ia[4], ib[4]);
  compare(o, opt, "scatter int64 validity", rsim, ma[1], mb[1]);
  compare(o, opt, "scatter float64 (a sub-range)", rsf, sfa, sfb);
  compare(o, opt, "scatter string codes", rsc, ca, cb);
  compare(o, opt, "scatter string validity", rscm, ma[2], mb[2]);
  o.seconds = timed(opt, [&] {
    tag();
    route_scatter();
  });
  o.bytes = static_cast<double>(k) * (8 + 2 * 8 + 2 * 8 + 8 + 8 + 1 + 8 + 1 + 8 + 4 + 8 + 8 + 1) +
            static_cast<double>(n) * (8 + 1);
  return o;
}

// cumsum()'s per-partition totals (column_sum): float64 exactly summable values with -0.0 and NaN (a null: adds 0),
// with and without a mask, and int64 values with their extremes (the sum wraps, as the host's), with and without a
// mask: the bits of each total.
Outcome column_sum(I64 n, const Options& opt) {
  Outcome o;
  std::vector<double> x = exact(n, 200);
  std::vector<I64> k = ints(n, 201, 1 << 20, -(1 << 19));
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(202, i);
    if (r % 29 == 0) x[i] = std::nan("");
    if (r % 31 == 0) x[i] = -0.0;
    if (r % 37 == 0) k[i] = r % 2 ? kI64Min : kI64Max;
  }
  const std::vector<U8> xm = valid(n, 203, 7), km = valid(n, 204, 5);
  using RO = fk::OpsKernels<Reference>;
  using DO = fk::OpsKernels<Device>;
  const std::vector<U64> ref{RO::column_sum(kExec, host_view(ElementType::float64, x, &xm), n),
                             RO::column_sum(kExec, host_view(ElementType::float64, x), n),
                             RO::column_sum(kExec, host_view(ElementType::int64, k, &km), n),
                             RO::column_sum(kExec, host_view(ElementType::int64, k), n)};
  const DevColumn dxm(ElementType::float64, x, &xm), dx(ElementType::float64, x), dkm(ElementType::int64, k, &km),
      dk(ElementType::int64, k);
  auto run = [&] {
    return std::vector<U64>{DO::column_sum(kExec, dxm.view(), n), DO::column_sum(kExec, dx.view(), n),
                            DO::column_sum(kExec, dkm.view(), n), DO::column_sum(kExec, dk.view(), n)};
  };
  compare(o, opt, "totals (float64 masked, float64, int64 masked, int64)", ref, run(), run());
  o.seconds = timed(opt, [&] { (void)DO::column_sum(kExec, dxm.view(), n); });
  o.bytes = static_cast<double>(n) * 9;
  return o;
}

}  // namespace

std::vector<Case> frame_cases() {
  return {
      {"frame.key_encode.packed", [](I64 n, const Options& o) { return key_encode(n, o, true, true); }},
      {"frame.key_encode.words_nulls", [](I64 n, const Options& o) { return key_encode(n, o, false, false); }},
      {"frame.key_encode.value_word_range", value_word_range},
      {"frame.sort.words_permutation", sort_words_and_permutation},
      {"frame.sort.packed_permutation_gather", sort_packed},
      {"frame.partition.hash_route_group", hash_route_group},
      {"frame.partition.range_hot_buckets", range_and_hot_buckets},
      {"frame.gather.column_select", gather_and_select},
      {"frame.groupby.aggregate_finalize", groupby},
      {"frame.groupby.combine", groupby_combine},
      {"frame.ops.filter_dropna_isin_cumsum_diff", ops},
      {"frame.ops.unique_value_counts", unique_value_counts},
      {"frame.ops.column_moments", column_moments},
      {"frame.ops.column_values", column_values},
      {"frame.rolling.values", rolling_values},
      {"frame.transform.cumsum_shift_mean_rolling", group_transform},
      {"frame.transform.few_groups", group_transform_few_groups},
      {"frame.groupby.nunique_pairs", nunique_pairs},
      {"frame.groupby.holistic", holistic},
      {"frame.resample.bounds_bins_fill", resample},
      {"frame.merge.inner",
       [](I64 n, const Options& o) {
         return join(n, o, false, {false, false});
       }},
      {"frame.merge.outer",
       [](I64 n, const Options& o) {
         return join(n, o, false, {true, true});
       }},
      {"frame.merge.direct_left",
       [](I64 n, const Options& o) {
         return join(n, o, true, {true, false});
       }},
      {"frame.rolling.rows_1000", [](I64 n, const Options& o) { return rolling(n, o, false); }},
      {"frame.rolling.time_1h", [](I64 n, const Options& o) { return rolling(n, o, true); }},
      {"frame.key_decode.packed", [](I64 n, const Options& o) { return key_decode(n, o, true, true); }},
      {"frame.key_decode.words_nulls", [](I64 n, const Options& o) { return key_decode(n, o, false, false); }},
      {"frame.merge.gather_output", join_gather},
      {"frame.expr.where_sqrt_floordiv_clip", expr_evaluate},
      {"frame.merge.prepared_probe", prepared_join_words},
      {"frame.merge.prepared_direct", prepared_join_direct},
      {"frame.partition.sample_hot_rows_word_hashes", hash_sample_hot_rows_word_hashes},
      {"frame.rolling.groups_carry", rolling_groups_carry},
      {"frame.transform.tag_route_scatter", tag_route_scatter},
      {"frame.ops.column_sum", column_sum},
  };
}

}  // namespace kernel_check
