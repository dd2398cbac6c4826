// The join kernels' reference instantiation against slab::frame::merge at 1 rank: the same (left row, right row)
// pairs in the same order for inner, left, right and outer joins, with key words (one and several keys, -0.0 and
// NaN keys, strings) and with the direct array of a dense int64 key; all-null and hot keys included.
#include <gtest/gtest.h>

#include <numeric>

#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/merge.hpp"
#include "frame/key_words.hpp"
#include "kernel_frames.hpp"
#include "slab/frame/merge.hpp"

namespace {

using namespace kernel_test;
using slab::ElementType;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;
namespace sf = slab::frame;
using sf::JoinKind;

/// A batch with a row id column "rid" appended, so the host result names its pairs.
TestBatch with_row_ids(const TestBatch& t) {
  sf::LocalTable table = sf::to_local_table(t.view, t.schema);
  std::vector<std::int64_t> rid(static_cast<std::size_t>(t.view.nrows()));
  std::iota(rid.begin(), rid.end(), 0);
  table.add(sf::LocalColumn::int64("rid", rid));
  TestBatch out;
  std::vector<sf::Field> fields = t.schema.fields();
  fields.push_back({"rid", ElementType::int64});
  std::vector<sf::Dictionary> dicts;
  for (std::size_t c = 0; c < t.schema.size(); ++c) dicts.push_back(t.schema.dictionary(c));
  dicts.emplace_back();
  out.schema = sf::Schema(fields, dicts);
  sf::write_batch(table, out.schema, 0, table.nrows(), out.storage);
  out.view = sf::BatchView(std::span<const std::byte>(out.storage));
  return out;
}

/// The host's pairs: (rid_x, rid_y) of every result row, -1 for a missing side.
std::vector<std::pair<std::int64_t, std::int64_t>> host_pairs(const sf::LocalTable& r) {
  const auto& x = r["rid_x"];
  const auto& y = r["rid_y"];
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t i = 0; i < x.size(); ++i)
    out.emplace_back(x.is_null(i) ? -1 : x.ints[i], y.is_null(i) ? -1 : y.ints[i]);
  return out;
}

struct Side {
  sf::detail::KeyEncoder enc;
  std::vector<std::vector<std::uint64_t>> words;
  std::vector<std::uint8_t> keep;
  std::vector<const std::uint64_t*> wp;
};

void check_merge(slab::Engine& engine, Profile lp, Profile rp, std::int64_t nl, std::int64_t nr,
                 const std::vector<std::string>& on, JoinKind how) {
  const HostFrame l = host_frame(engine, with_row_ids(make_batch(nl, lp, 80)));
  const HostFrame r = host_frame(engine, with_row_ids(make_batch(nr, rp, 81)));
  sf::MergeOptions options;
  options.how = how;
  options.strategy = how == JoinKind::outer ? sf::JoinStrategy::hash : sf::JoinStrategy::broadcast;
  sf::MergeStats stats;
  options.stats = &stats;
  const auto host = host_pairs(sf::merge(l.frame, r.frame, on, options).gather_all());
  // The host's roles: broadcast joins build on the smaller side for inner (ties: right), the non-preserved side
  // for left/right; hash joins (outer) build on the right side.
  const std::int64_t rowbytes = 8 * 7 + 1 + 4;
  int build = how == JoinKind::right ? 0 : 1;
  if (how == JoinKind::inner && nl * rowbytes < nr * rowbytes) build = 0;
  const HostFrame* side[2] = {&l, &r};
  // Both sides encoded alike (merge's plan: dropna, shared ranges; the dictionaries here are the strings present
  // on each side, so string keys get merge's remap into their sorted union).
  Side s[2];
  std::vector<std::string> u;
  const std::size_t sc = l.schema().index_of("s");
  std::set_union(l.schema().dictionary(sc)->begin(), l.schema().dictionary(sc)->end(),
                 r.schema().dictionary(sc)->begin(), r.schema().dictionary(sc)->end(), std::back_inserter(u));
  for (int k = 0; k < 2; ++k) {
    auto& enc = s[k].enc;
    enc.dropna = true;
    for (const auto& name : on) {
      const std::size_t c = side[k]->schema().index_of(name);
      const ElementType t = side[k]->schema().type(c);
      enc.cols.push_back(c);
      enc.types.push_back(t);
      enc.card.push_back(t == ElementType::boolean  ? 2
                         : t == ElementType::string ? std::max<std::size_t>(1, u.size())
                                                    : 0);
      std::vector<std::int64_t> remap;
      if (t == ElementType::string)
        for (const auto& v : *side[k]->schema().dictionary(c))
          remap.push_back(std::lower_bound(u.begin(), u.end(), v) - u.begin());
      enc.remap.push_back(remap);
    }
    auto remaps = std::move(enc.remap);
    enc.init();
    enc.remap = std::move(remaps);
  }
  const int nw = s[0].enc.nwords;
  if (nw == 1 && !s[0].enc.static_ranges()) {
    for (auto& x : s) x.enc.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(nw, ~0ull), maxs(nw, 0);
    for (auto& x : s) x.enc.update_ranges(side[&x - s]->view, mins, maxs);
    for (auto& x : s) x.enc.set_ranges(mins, maxs);
  }
  for (int k = 0; k < 2; ++k) {
    s[k].enc.encode(side[k]->view, s[k].words, s[k].keep);
    for (auto& w : s[k].words) s[k].wp.push_back(w.data());
  }
  const int probe = 1 - build;
  const fk::JoinSides kind{
      how == JoinKind::outer || (how == JoinKind::left && probe == 0) || (how == JoinKind::right && probe == 1),
      how == JoinKind::outer};
  const std::int64_t np = side[probe]->view.nrows(), nb = side[build]->view.nrows();
  const std::string what = std::string(name(lp)) + "/" + name(rp) + " " + std::to_string(nl) + "x" +
                           std::to_string(nr) + " on " + std::to_string(on.size()) + " how " +
                           std::to_string(static_cast<int>(how));
  auto run = [&](bool direct) {
    std::vector<std::byte> ws(fk::JoinKernels<Reference>::workspace_bytes(np, nb));
    CountingScratch scratch;
    std::int64_t pairs = 0;
    if (direct) {
      const std::size_t c = side[build]->schema().index_of(on[0]);
      std::uint64_t mn, mx;
      fk::KeyKernels<Reference>::value_word_range(scratch.exec(), {side[build]->column(c), nullptr}, nb, &mn, &mx);
      if (mn <= mx && mx - mn >= (1u << 27)) return;  // the host would not use the direct array either
      const std::int64_t lo = mn <= mx ? fk::word_int(mn) : 0;
      const std::uint64_t span = mn <= mx ? mx - mn + 1 : 1;
      const auto pc = side[probe]->column(side[probe]->schema().index_of(on[0]));
      const auto bc = side[build]->column(c);
      pairs = fk::JoinKernels<Reference>::count_direct(
          scratch.exec(), {static_cast<const std::int64_t*>(pc.data), pc.valid, np},
          {static_cast<const std::int64_t*>(bc.data), bc.valid, nb}, lo, span, kind, ws.data());
    } else {
      int bits[fk::kMaxKeyWords];
      fk::key_bits(s[build].enc, bits);
      pairs = fk::JoinKernels<Reference>::count(scratch.exec(), {s[probe].wp.data(), s[probe].keep.data(), np},
                                                {s[build].wp.data(), s[build].keep.data(), nb}, s[0].enc.width(), bits,
                                                kind, ws.data());
    }
    std::vector<std::int64_t> pi(static_cast<std::size_t>(pairs)), bi(static_cast<std::size_t>(pairs));
    fk::JoinKernels<Reference>::fill(scratch.exec(), np, nb, kind, ws.data(), pairs, pi.data(), bi.data());
    EXPECT_EQ(scratch.live(), 0u);
    std::vector<std::pair<std::int64_t, std::int64_t>> got;
    for (std::int64_t j = 0; j < pairs; ++j) got.emplace_back(probe == 0 ? pi[j] : bi[j], probe == 0 ? bi[j] : pi[j]);
    ASSERT_EQ(got.size(), host.size()) << what << (direct ? " direct" : "");
    EXPECT_TRUE(got == host) << what << (direct ? " direct" : "");
  };
  run(false);
  const ElementType kt = l.schema().type(l.schema().index_of(on[0]));
  if (on.size() == 1 && (kt == ElementType::int64 || kt == ElementType::timestamp)) run(true);
}

TEST(KernelMerge, PairsAreTheHostMergesInItsOrder) {
  slab::testing::Engine engine;
  const std::vector<std::vector<std::string>> keysets{{"i"}, {"f"}, {"s"}, {"i", "s"}, {"b", "t"}};
  // Every join kind: every profile pair on a one-word key and on the side sizes, every key set on a
  // few sizes.
  const std::pair<std::int64_t, std::int64_t> all_sizes[] = {{0, 0},   {1, 1},   {31, 32},  {4097, 4095},
                                                             {0, 100}, {100, 0}, {2000, 31}};
  for (JoinKind how : {JoinKind::inner, JoinKind::left, JoinKind::right, JoinKind::outer}) {
    for (auto [nl, nr] : all_sizes) check_merge(engine, Profile::random, Profile::random, nl, nr, keysets[0], how);
    for (auto [lp, rp] : {std::pair{Profile::skewed, Profile::one_group},
                          {Profile::distinct, Profile::distinct},
                          {Profile::all_null, Profile::random},
                          {Profile::extremes, Profile::extremes}})
      for (auto [nl, nr] : {std::pair<std::int64_t, std::int64_t>{2000, 31}, {31, 4097}})
        check_merge(engine, lp, rp, nl, nr, keysets[0], how);
    for (std::size_t k = 1; k < keysets.size(); ++k)
      for (auto [lp, rp] : {std::pair{Profile::random, Profile::random}, {Profile::extremes, Profile::skewed}})
        for (auto [nl, nr] : {std::pair<std::int64_t, std::int64_t>{2000, 31}, {0, 100}, {32, 31}})
          check_merge(engine, lp, rp, nl, nr, keysets[k], how);
  }
}

TEST(KernelMerge, ALargeHotKeyJoin) {
  slab::testing::Engine engine;
  check_merge(engine, Profile::skewed, Profile::random, (1 << 20) + 1, 256, {"i"}, JoinKind::inner);
  check_merge(engine, Profile::distinct, Profile::distinct, (1 << 20) + 1, (1 << 16), {"i"}, JoinKind::left);
}

}  // namespace
