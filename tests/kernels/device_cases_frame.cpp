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
  };
}

}  // namespace kernel_check
