// Key kernels (key_encode, sort_perm, partition, gather) in their reference instantiation against the host's
// KeyEncoder, hash_rows, the partitioner's hash and range buckets and take_rows: bitwise, on every size and profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/kernels/exec.hpp"
#include "frame/hash_bytes.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/key_words.hpp"
#include "kernel_batches.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/frame/sort.hpp"

namespace {

using namespace kernel_test;
using slab::ElementType;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;
using slab::frame::detail::KeyEncoder;

/// A host KeyEncoder over columns `cols` of t, with its range pass where the host does one.
KeyEncoder host_encoder(const TestBatch& t, const std::vector<std::size_t>& cols, bool dropna) {
  KeyEncoder enc;
  enc.dropna = dropna;
  for (auto c : cols) {
    enc.cols.push_back(c);
    const ElementType ty = t.schema.type(c);
    enc.types.push_back(ty);
    enc.card.push_back(ty == ElementType::boolean ? 2 : ty == ElementType::string ? kDictSize : 0);
  }
  enc.init();
  if (enc.nwords == 1 && !enc.static_ranges()) {
    enc.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(enc.nwords, ~0ull), maxs(enc.nwords, 0);
    enc.update_ranges(t.view, mins, maxs);
    enc.set_ranges(mins, maxs);
  }
  return enc;
}

struct Encoded {
  std::vector<std::vector<std::uint64_t>> words;
  std::vector<std::uint8_t> keep;
  std::int64_t kept = 0;
};

Encoded kernel_encode(CountingScratch& scratch, const TestBatch& t, const KeyEncoder& enc) {
  const auto n = t.view.nrows();
  const fk::KeyLayout layout = fk::layout_of(enc);
  std::vector<fk::KeyColumn> keys;
  for (std::size_t k = 0; k < enc.cols.size(); ++k)
    keys.push_back({t.column(enc.cols[k]), enc.remap[k].empty() ? nullptr : enc.remap[k].data()});
  Encoded e;
  e.words.assign(layout.width(), std::vector<std::uint64_t>(static_cast<std::size_t>(n)));
  e.keep.assign(static_cast<std::size_t>(n), 0);
  std::vector<std::uint64_t*> wp;
  for (auto& w : e.words) wp.push_back(w.data());
  e.kept = fk::KeyKernels<Reference>::encode(scratch.exec(), keys.data(), layout, n, wp.data(), e.keep.data());
  return e;
}

struct KeyConfig {
  std::vector<std::size_t> cols;
  bool dropna;
  bool remap;
};

std::vector<KeyConfig> key_configs() {
  return {{{0}, true, false},
          {{0}, false, false},
          {{1}, true, false},
          {{1}, false, false},
          {{3}, true, true},
          {{0, 3}, true, false},
          {{0, 3}, false, false},
          {{2, 3}, false, true},
          {{1, 0, 2, 3, 4}, true, false},
          {{1, 0, 2, 3, 4}, false, false},
          {{4, 1}, false, false}};
}

TEST(KernelKeys, EncodeIsTheKeyEncodersWords) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes())
      for (const KeyConfig& kc : key_configs()) {
        if (n == kLarge && ((p != Profile::random && p != Profile::extremes) || kc.cols.size() != 2)) continue;
        const TestBatch t = make_batch(n, p, 11);
        KeyEncoder enc = host_encoder(t, kc.cols, kc.dropna);
        if (kc.remap)  // a shared dictionary where code c maps to 2c + 1, every third code absent (-1)
          for (std::size_t k = 0; k < enc.cols.size(); ++k)
            if (enc.types[k] == ElementType::string)
              for (int c = 0; c < kDictSize; ++c) enc.remap[k].push_back(c % 3 == 2 ? -1 : 2 * c + 1);
        std::vector<std::vector<std::uint64_t>> host_words;
        std::vector<std::uint8_t> host_keep;
        const std::int64_t host_kept = enc.encode(t.view, host_words, host_keep);
        CountingScratch scratch;
        const Encoded e = kernel_encode(scratch, t, enc);
        SCOPED_TRACE(std::string(name(p)) + " n=" + std::to_string(n) + " words=" + std::to_string(enc.width()) +
                     (enc.packed ? " packed" : "") + (kc.dropna ? " dropna" : ""));
        EXPECT_EQ(e.kept, host_kept);
        EXPECT_EQ(e.keep, host_keep);
        ASSERT_EQ(e.words.size(), host_words.size());
        for (std::size_t w = 0; w < host_words.size(); ++w) {
          if (kc.dropna)  // dropped rows' words are unspecified: compare kept rows
            for (std::size_t i = 0; i < host_keep.size(); ++i)
              if (!host_keep[i]) host_words[w][i] = e.words[w][i];
          EXPECT_EQ(e.words[w], host_words[w]) << "word " << w;
        }
        EXPECT_EQ(scratch.live(), 0u);
      }
}

TEST(KernelKeys, ValueWordRangeIsUpdateRanges) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes())
      for (std::size_t c : {0u, 1u, 4u}) {
        if (n == kLarge && p != Profile::random) continue;
        const TestBatch t = make_batch(n, p, 12);
        KeyEncoder enc = host_encoder(t, {c}, true);
        std::vector<std::uint64_t> mins(1, ~0ull), maxs(1, 0);
        enc.update_ranges(t.view, mins, maxs);
        std::uint64_t mn = 0, mx = 0;
        CountingScratch scratch;
        fk::KeyKernels<Reference>::value_word_range(scratch.exec(), {t.column(c), nullptr}, n, &mn, &mx);
        EXPECT_EQ(mn, mins[0]) << name(p) << " n=" << n << " column " << c;
        EXPECT_EQ(mx, maxs[0]) << name(p) << " n=" << n << " column " << c;
      }
}

/// The host's order: a stable sort of row indices by their words, lexicographically.
std::vector<std::int64_t> host_order(const std::vector<std::vector<std::uint64_t>>& words, std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    for (const auto& w : words)
      if (w[a] != w[b]) return w[a] < w[b];
    return false;
  });
  return order;
}

TEST(KernelSort, PermutationIsTheStableLexicographicOrder) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes())
      for (const KeyConfig& kc : key_configs()) {
        // Large: the multi-word key on the skewed profile only (a serial merge sort of 2^20 rows costs seconds;
        // the smaller sizes cover every profile and key layout).
        if (n == kLarge && (p != Profile::skewed || kc.cols.size() != 5 || !kc.dropna)) continue;
        const TestBatch t = make_batch(n, p, 13);
        const KeyEncoder enc = host_encoder(t, kc.cols, false);
        std::vector<std::vector<std::uint64_t>> words;
        std::vector<std::uint8_t> keep;
        enc.encode(t.view, words, keep);
        std::vector<const std::uint64_t*> wp;
        for (auto& w : words) wp.push_back(w.data());
        int bits[fk::kMaxKeyWords];
        fk::key_bits(enc, bits);
        std::vector<std::int64_t> perm(static_cast<std::size_t>(n), -1);
        CountingScratch scratch;
        fk::SortKernels<Reference>::permutation(scratch.exec(), wp.data(), enc.width(), bits, n, perm.data());
        EXPECT_EQ(perm, host_order(words, n)) << name(p) << " n=" << n << " words=" << enc.width();
        EXPECT_EQ(scratch.live(), 0u);
        // All 64 bits of every word: the same order.
        if (n > 0 && n != kLarge && p == Profile::random) {
          std::vector<std::int64_t> full(static_cast<std::size_t>(n), -1);
          fk::SortKernels<Reference>::permutation(scratch.exec(), wp.data(), enc.width(), nullptr, n, full.data());
          EXPECT_EQ(full, perm);
        }
      }
}

TEST(KernelSort, GatherWordsTakesRowsAndZeroForMinusOne) {
  std::vector<std::uint64_t> a{5, 6, 7}, b{50, 60, 70};
  const std::uint64_t* in[2] = {a.data(), b.data()};
  std::vector<std::int64_t> rows{2, -1, 0, 0};
  std::vector<std::uint64_t> oa(4), ob(4);
  std::uint64_t* out[2] = {oa.data(), ob.data()};
  CountingScratch scratch;
  fk::SortKernels<Reference>::gather_words(scratch.exec(), in, 2, rows.data(), 4, out);
  EXPECT_EQ(oa, (std::vector<std::uint64_t>{7, 0, 5, 5}));
  EXPECT_EQ(ob, (std::vector<std::uint64_t>{70, 0, 50, 50}));
}

std::vector<std::uint64_t> dict_hashes(const slab::frame::Schema& schema, std::size_t c) {
  std::vector<std::uint64_t> out;
  for (const auto& s : *schema.dictionary(c)) out.push_back(slab::frame::detail::hash_bytes(s));
  return out;
}

TEST(KernelPartition, HashRowsIsTheHostRowHash) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes())
      for (const std::vector<std::size_t>& cols :
           std::vector<std::vector<std::size_t>>{{0}, {1}, {2}, {3}, {4}, {3, 0}, {1, 2, 3, 4, 0}}) {
        if (n == kLarge && (p != Profile::random || cols.size() < 2)) continue;
        const TestBatch t = make_batch(n, p, 14);
        const std::vector<std::uint64_t> host = slab::frame::hash_rows(t.view, t.schema, cols);
        const std::vector<std::uint64_t> dh = dict_hashes(t.schema, 3);
        std::vector<fk::HashColumn> keys;
        for (auto c : cols) keys.push_back({t.column(c), c == 3 ? dh.data() : nullptr});
        std::vector<std::uint64_t> got(static_cast<std::size_t>(n), 0);
        CountingScratch scratch;
        fk::PartitionKernels<Reference>::hash_rows(scratch.exec(), keys.data(), static_cast<int>(keys.size()), n,
                                                   got.data());
        EXPECT_EQ(got, host) << name(p) << " n=" << n << " keys=" << cols.size();
        // merge's sample: every stride-th row's hash (the last stride leaving a partial step).
        for (std::int64_t stride : {std::int64_t{1}, std::int64_t{3}, std::int64_t{32}, n + 1}) {
          std::vector<std::uint64_t> sample(static_cast<std::size_t>((n + stride - 1) / stride), 0), want;
          for (std::int64_t i = 0; i < n; i += stride) want.push_back(host[static_cast<std::size_t>(i)]);
          fk::PartitionKernels<Reference>::hash_sample(scratch.exec(), keys.data(), static_cast<int>(keys.size()), n,
                                                       stride, sample.data());
          EXPECT_EQ(sample, want) << name(p) << " n=" << n << " keys=" << cols.size() << " stride=" << stride;
        }
        // The routes of shuffle(): shuffle_bucket of every hash, for awkward rank and part counts.
        for (auto [ranks, parts] : {std::pair{1, 1}, {3, 5}, {4, 1}, {7, 3}}) {
          std::vector<std::uint32_t> bucket(static_cast<std::size_t>(n), 0);
          fk::PartitionKernels<Reference>::hash_buckets(scratch.exec(), got.data(), n, ranks, parts, bucket.data());
          bool same = true;
          for (std::size_t i = 0; i < bucket.size(); ++i)
            same = same && bucket[i] == kernel_test::host_bucket(host[i], ranks, parts);
          EXPECT_TRUE(same) << ranks << " ranks, " << parts << " parts";
        }
      }
}

TEST(KernelPartition, RangeBucketsAreThePartitionersBucketOfKey) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes()) {
      if (n == kLarge && p != Profile::skewed) continue;
      const TestBatch t = make_batch(n, p, 15);
      const KeyEncoder enc = host_encoder(t, {0, 3}, false);  // 4 words: flag, int64, flag, string
      std::vector<std::vector<std::uint64_t>> words;
      std::vector<std::uint8_t> keep;
      enc.encode(t.view, words, keep);
      const std::size_t W = words.size() + 1;  // + the row index word
      const std::int64_t first_row = 1000;
      std::vector<std::uint64_t> records(static_cast<std::size_t>(n) * W);
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::size_t w = 0; w + 1 < W; ++w) records[i * W + w] = words[w][i];
        records[i * W + W - 1] = static_cast<std::uint64_t>(first_row + i);
      }
      for (int nb : {1, 2, 7, 64}) {
        // Splitters as sort_values takes them: every record a sample (or few when n is small).
        const std::vector<std::uint64_t> splitters = slab::frame::detail::choose_splitters(records, W, nb);
        std::vector<const std::uint64_t*> wp;
        for (auto& w : words) wp.push_back(w.data());
        std::vector<std::uint32_t> bucket(static_cast<std::size_t>(n), 99);
        CountingScratch scratch;
        fk::PartitionKernels<Reference>::range_buckets(scratch.exec(), wp.data(), static_cast<int>(words.size()), true,
                                                       first_row, n, splitters.data(),
                                                       static_cast<std::int64_t>(splitters.size() / W), bucket.data());
        const auto host = slab::frame::detail::Partitioner::range(1, nb, splitters, W);
        bool same = true;
        for (std::int64_t i = 0; i < n; ++i) same = same && bucket[i] == host.bucket_of_key(&records[i * W]);
        EXPECT_TRUE(same) << name(p) << " n=" << n << " buckets=" << nb;
      }
    }
}

TEST(KernelPartition, GroupByBucketIsAStableCountingSort) {
  for (std::int64_t n : sizes())
    for (std::int64_t nb : {1, 3, 64, 4097}) {
      std::vector<std::uint32_t> bucket(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        bucket[i] = h(16, i) % 11 == 0 ? fk::kDropBucket : static_cast<std::uint32_t>(h(17, i) % nb);
      // shuffle_round's counting sort.
      std::vector<std::int64_t> start(nb + 1, 0);
      for (auto b : bucket)
        if (b != fk::kDropBucket) ++start[b + 1];
      for (std::int64_t b = 0; b < nb; ++b) start[b + 1] += start[b];
      std::vector<std::int64_t> host_rows(start[nb]);
      std::vector<std::int64_t> at(start.begin(), start.end() - 1);
      for (std::int64_t i = 0; i < n; ++i)
        if (bucket[i] != fk::kDropBucket) host_rows[at[bucket[i]]++] = i;
      std::vector<std::int64_t> rows(static_cast<std::size_t>(n), -1), offsets(nb + 1, -1);
      CountingScratch scratch;
      const std::int64_t kept = fk::PartitionKernels<Reference>::group_by_bucket(scratch.exec(), bucket.data(), n, nb,
                                                                                 rows.data(), offsets.data());
      EXPECT_EQ(kept, start[nb]);
      EXPECT_EQ(offsets, start) << "n=" << n << " buckets=" << nb;
      rows.resize(static_cast<std::size_t>(kept));
      EXPECT_EQ(rows, host_rows) << "n=" << n << " buckets=" << nb;
      EXPECT_EQ(scratch.live(), 0u);
    }
}

TEST(KernelPartition, HotKeyBucketsSplitAsMergeDoes) {
  const std::int64_t n = 4097;
  std::vector<std::uint64_t> hashes(n);
  for (std::int64_t i = 0; i < n; ++i) hashes[i] = h(18, i % 5 == 0 ? 0 : i % 7 == 0 ? 1 : i);
  std::vector<std::uint64_t> hot{h(18, 0), h(18, 1)};
  std::vector<std::uint8_t> side{0, 1};
  if (hot[0] > hot[1]) std::swap(hot[0], hot[1]), std::swap(side[0], side[1]);
  for (int me : {0, 1}) {
    std::vector<std::uint32_t> bucket(n);
    CountingScratch scratch;
    fk::PartitionKernels<Reference>::hot_key_buckets(scratch.exec(), hashes.data(), n, 3, 4, hot.data(), side.data(), 2,
                                                     me, bucket.data());
    for (std::int64_t i = 0; i < n; ++i) {
      const auto it = std::lower_bound(hot.begin(), hot.end(), hashes[i]);
      std::uint32_t want = kernel_test::host_bucket(hashes[i], 3, 4);
      if (it != hot.end() && *it == hashes[i])
        want = side[it - hot.begin()] == me ? slab::frame::kDropRow : static_cast<std::uint32_t>((hashes[i] + i) % 12);
      ASSERT_EQ(bucket[i], want) << "row " << i << " side " << me;
    }
    // The replicated rows of side `me`: exactly the rows the split drops, in row order; none without hot keys.
    std::vector<std::int64_t> rows(n, -1), want;
    for (std::int64_t i = 0; i < n; ++i)
      if (bucket[i] == slab::frame::kDropRow) want.push_back(i);
    const std::int64_t k = fk::PartitionKernels<Reference>::hot_rows(scratch.exec(), hashes.data(), n, hot.data(),
                                                                     side.data(), 2, me, rows.data());
    rows.resize(static_cast<std::size_t>(k));
    EXPECT_EQ(rows, want) << "side " << me;
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(fk::PartitionKernels<Reference>::hot_rows(scratch.exec(), hashes.data(), n, hot.data(), side.data(), 0,
                                                        me, rows.data()),
              0);
  }
}

TEST(KernelGather, ColumnIsTakeRows) {
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const TestBatch t = make_batch(n, p, 19);
      std::vector<std::int64_t> rows;
      for (std::int64_t i = 0; i < n + 5; ++i) rows.push_back(h(20, i) % 9 == 0 || n == 0 ? -1 : h(21, i) % n);
      std::vector<std::byte> host;
      slab::frame::take_rows(t.view, rows, host);
      const slab::frame::BatchView hv(host);
      CountingScratch scratch;
      for (std::size_t c = 0; c < t.view.ncols(); ++c) {
        const std::size_t es = slab::element_size(t.view.type(c));
        std::vector<std::byte> out(rows.size() * es);
        std::vector<std::uint8_t> valid(rows.size(), 7);
        fk::GatherKernels<Reference>::column(scratch.exec(), t.column(c), rows.data(),
                                             static_cast<std::int64_t>(rows.size()), out.data(),
                                             hv.valid(c) ? valid.data() : nullptr);
        EXPECT_EQ(std::memcmp(out.data(), hv.data(c), out.size()), 0) << name(p) << " n=" << n << " column " << c;
        if (hv.valid(c)) EXPECT_EQ(std::memcmp(valid.data(), hv.valid(c), rows.size()), 0) << "column " << c;
      }
    }
}

TEST(KernelGather, SelectRowsKeepsFlaggedRowsInOrder) {
  for (std::int64_t n : sizes()) {
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(n));
    std::vector<std::int64_t> want;
    for (std::int64_t i = 0; i < n; ++i) {
      flags[i] = static_cast<std::uint8_t>(h(22, i) % 3 == 0 ? 0 : h(22, i) % 5 + 1);
      if (flags[i]) want.push_back(i);
    }
    std::vector<std::int64_t> rows(static_cast<std::size_t>(n), -1);
    CountingScratch scratch;
    const std::int64_t k = fk::GatherKernels<Reference>::select_rows(scratch.exec(), flags.data(), n, rows.data());
    rows.resize(static_cast<std::size_t>(k));
    EXPECT_EQ(rows, want) << "n=" << n;
  }
}

}  // namespace
