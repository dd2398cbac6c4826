// The row-wise frame kernels (filter, dropna, isin, unique, value_counts, cumsum, shift, diff, to_array's cast) and
// the kernel pipelines of sort_values (sort words + permutation) and shuffle (row hash + route + grouping by bucket),
// in their reference instantiation, against the host's frame operations at 1 rank: the same rows, bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "frame/hash_bytes.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/ops.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/key_words.hpp"
#include "kernel_compare.hpp"
#include "kernel_frames.hpp"
#include "slab/frame/expr.hpp"
#include "slab/frame/from_arrays.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/frame/sort.hpp"

namespace {

using namespace kernel_test;
using slab::ElementType;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;
namespace sf = slab::frame;

/// The host's rows of a (persisted) frame, concatenated.
struct Rows {
  std::vector<std::byte> storage;
  sf::BatchView view;
};
Rows rows_of(const sf::Frame& f) {
  Rows r;
  sf::Frame(f).persist();
  r.view = sf::concat_local_partitions(f, r.storage);
  return r;
}
/// The rows `rows` of f's batch.
Rows take(const HostFrame& f, const std::vector<std::int64_t>& rows) {
  Rows r;
  sf::take_rows(f.view, rows, r.storage);
  r.view = sf::BatchView(std::span<const std::byte>(r.storage));
  return r;
}

std::vector<std::int64_t> n_rows(std::int64_t n) { return std::vector<std::int64_t>(static_cast<std::size_t>(n)); }

TEST(KernelOps, FilterIsTheHostFilter) {
  slab::testing::Engine engine;
  const sf::Expr predicates[] = {sf::col("y") > sf::lit(0.0), (sf::col("i") > sf::lit(std::int64_t{3})) & sf::col("b"),
                                 sf::col("s") == sf::lit(std::string("k114")),
                                 ~(sf::col("z") < sf::lit(std::int64_t{0}))};
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const HostFrame f = host_frame(engine, make_batch(n, p, 70), 1000);
      for (const sf::Expr& e : predicates) {
        const Rows host = rows_of(sf::filter(f.frame, e));
        const sf::EvalColumn pred = sf::evaluate(e, f.view, f.schema());
        std::vector<std::int64_t> rows = n_rows(n);
        CountingScratch scratch;
        const std::int64_t k = fk::OpsKernels<Reference>::filter_rows(
            scratch.exec(), pred.bools.data(), pred.valid.empty() ? nullptr : pred.valid.data(), n, rows.data());
        rows.resize(static_cast<std::size_t>(k));
        expect_same_rows(take(f, rows).view, host.view, std::string(name(p)) + " filter " + e.to_string());
      }
    }
}

TEST(KernelOps, DropnaIsTheHostDropna) {
  slab::testing::Engine engine;
  const std::vector<std::vector<std::string>> subsets{{}, {"i"}, {"f", "s"}, {"y", "z", "t"}};
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const HostFrame f = host_frame(engine, make_batch(n, p, 71), 999);
      for (const auto& subset : subsets) {
        const Rows host = rows_of(sf::dropna(f.frame, subset));
        std::vector<fk::ColumnView> cols;
        for (const auto& name : subset.empty() ? f.schema().names() : subset)
          cols.push_back(f.column(f.schema().index_of(name)));
        std::vector<std::int64_t> rows = n_rows(n);
        CountingScratch scratch;
        const std::int64_t k = fk::OpsKernels<Reference>::dropna_rows(scratch.exec(), cols.data(),
                                                                      static_cast<int>(cols.size()), n, rows.data());
        rows.resize(static_cast<std::size_t>(k));
        expect_same_rows(take(f, rows).view, host.view,
                         std::string(name(p)) + " dropna of " + std::to_string(subset.size()));
      }
    }
}

TEST(KernelOps, IsinIsTheHostsEvaluation) {
  slab::testing::Engine engine;
  const std::vector<sf::Scalar> ints{
      std::int64_t{3}, std::int64_t{-40}, std::int64_t{7}, std::int64_t{0}, std::numeric_limits<std::int64_t>::min(),
      std::int64_t{-1}};
  const std::vector<sf::Scalar> floats{0.0, 1.5, -0.25, std::numeric_limits<double>::infinity(), 2.0};
  const std::vector<sf::Scalar> strings{std::string("k107"), std::string("k170"), std::string("nope")};
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const HostFrame f = host_frame(engine, make_batch(n, p, 72));
      for (const auto& [column, set] : std::vector<std::pair<std::string, std::vector<sf::Scalar>>>{
               {"i", ints}, {"z", ints}, {"f", floats}, {"y", floats}, {"b", {true}}, {"s", strings}}) {
        const sf::EvalColumn host = sf::evaluate(sf::col(column).isin(set), f.view, f.schema());
        const std::size_t c = f.schema().index_of(column);
        std::vector<std::uint8_t> got(static_cast<std::size_t>(n), 9);
        CountingScratch scratch;
        if (f.schema().type(c) == ElementType::string) {
          std::vector<std::int32_t> codes;
          for (const auto& v : set) {
            const auto& d = *f.schema().dictionary(c);
            const auto it = std::lower_bound(d.begin(), d.end(), std::get<std::string>(v));
            if (it != d.end() && *it == std::get<std::string>(v))
              codes.push_back(static_cast<std::int32_t>(it - d.begin()));
          }
          std::sort(codes.begin(), codes.end());
          fk::OpsKernels<Reference>::isin_codes(scratch.exec(), f.column(c), n, codes.data(),
                                                static_cast<std::int64_t>(codes.size()), got.data());
        } else {
          std::vector<double> vals;
          for (const auto& v : set)
            vals.push_back(std::holds_alternative<double>(v) ? std::get<double>(v)
                           : std::holds_alternative<bool>(v) ? static_cast<double>(std::get<bool>(v))
                                                             : static_cast<double>(std::get<std::int64_t>(v)));
          std::sort(vals.begin(), vals.end());
          fk::OpsKernels<Reference>::isin_values(scratch.exec(), f.column(c), n, vals.data(),
                                                 static_cast<std::int64_t>(vals.size()), got.data());
        }
        EXPECT_EQ(got, host.bools) << name(p) << " n=" << n << " " << column;
      }
    }
}

/// A one-column KeyEncoder as unique()/value_counts() group (nulls kept or dropped).
sf::detail::KeyEncoder one_key(const HostFrame& f, std::size_t c, bool dropna) {
  sf::detail::KeyEncoder enc;
  enc.dropna = dropna;
  enc.cols = {c};
  const ElementType t = f.schema().type(c);
  enc.types = {t};
  enc.card = {t == ElementType::boolean  ? 2u
              : t == ElementType::string ? std::max<std::uint64_t>(1, f.schema().dictionary(c)->size())
                                         : 0u};
  enc.init();
  if (enc.static_ranges()) {
    std::vector<std::uint64_t> mins(enc.nwords, ~0ull), maxs(enc.nwords, 0);
    enc.update_ranges(f.view, mins, maxs);
    enc.set_ranges(mins, maxs);
  } else {
    enc.set_unpacked();
  }
  return enc;
}

/// Column c of `rows` of f as a one-column batch, and the host table's column as one.
void expect_same_values(const HostFrame& f, std::size_t c, const std::vector<std::int64_t>& rows,
                        const sf::LocalTable& host, const std::string& what) {
  const sf::Schema one = f.schema().select({f.schema().name(c)});
  std::vector<std::byte> a;
  {
    sf::BatchBuilder b(a, static_cast<std::int64_t>(rows.size()), {f.schema().type(c)}, {true});
    CountingScratch scratch;
    fk::GatherKernels<Reference>::column(scratch.exec(), f.column(c), rows.data(),
                                         static_cast<std::int64_t>(rows.size()), b.data(0), b.valid(0));
  }
  sf::LocalTable only;
  only.columns.push_back(host.columns[0]);
  const std::vector<std::byte> hb = table_batch(only, one);
  expect_same_rows(sf::BatchView(std::span<const std::byte>(a)), sf::BatchView(std::span<const std::byte>(hb)), what);
}

TEST(KernelOps, UniqueAndValueCountsAreTheHosts) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random))
      for (const char* column : {"i", "f", "b", "s", "y"}) {
        // Every size on "i" of the random profile; a small and a multi-tile size elsewhere.
        if (!(column[0] == 'i' && p == Profile::random) && n != 31 && n != 4097) continue;
        const HostFrame f = host_frame(engine, make_batch(n, p, 73));
        const std::size_t c = f.schema().index_of(column);
        const std::string what = std::string(name(p)) + " n=" + std::to_string(n) + " " + column;
        for (bool counts : {false, true}) {
          const sf::detail::KeyEncoder enc = one_key(f, c, counts);
          std::vector<std::vector<std::uint64_t>> words;
          std::vector<std::uint8_t> keep;
          enc.encode(f.view, words, keep);
          std::vector<const std::uint64_t*> wp;
          for (auto& w : words) wp.push_back(w.data());
          int bits[fk::kMaxKeyWords];
          fk::key_bits(enc, bits);
          std::vector<std::int64_t> first = n_rows(n), count = n_rows(n);
          CountingScratch scratch;
          const std::int64_t g =
              counts ? fk::OpsKernels<Reference>::value_counts(scratch.exec(), wp.data(), enc.width(), bits, n,
                                                               keep.data(), first.data(), count.data())
                     : fk::OpsKernels<Reference>::unique(scratch.exec(), wp.data(), enc.width(), bits, n, first.data(),
                                                         count.data());
          EXPECT_EQ(scratch.live(), 0u);
          const sf::LocalTable host = counts ? sf::value_counts(f.frame, column) : sf::unique(f.frame, column);
          ASSERT_EQ(g, host.nrows()) << what << (counts ? " value_counts" : " unique");
          first.resize(static_cast<std::size_t>(g));
          count.resize(static_cast<std::size_t>(g));
          expect_same_values(f, c, first, host, what + (counts ? " value_counts" : " unique"));
          if (counts) EXPECT_EQ(count, host.columns[1].ints) << what;
        }
      }
}

TEST(KernelOps, CumsumIsTheHostsRunningSum) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const std::int64_t rpp = 1000;
      const HostFrame f = host_frame(engine, make_batch(n, p, 74), rpp);
      const Rows host = rows_of(sf::cumsum(f.frame, {"x", "y", "z", "i"}));
      for (const char* column : {"x", "y", "z", "i"}) {
        const std::size_t c = f.schema().index_of(column);
        const bool isf = f.schema().type(c) == ElementType::float64;
        // Partition by partition, each starting from the host's offset (the sums of the partitions before it).
        std::vector<std::byte> out(static_cast<std::size_t>(n) * 8);
        double foff = 0;
        std::int64_t ioff = 0;
        for (std::int64_t p0 = 0; p0 < n; p0 += rpp) {
          const std::int64_t m = std::min(rpp, n - p0);
          fk::ColumnView part = f.column(c);
          part.data = static_cast<const std::byte*>(part.data) + 8 * p0;
          if (part.valid) part.valid += p0;
          std::uint64_t off;
          if (isf)
            std::memcpy(&off, &foff, 8);
          else
            off = static_cast<std::uint64_t>(ioff);
          CountingScratch scratch;
          fk::OpsKernels<Reference>::cumsum(scratch.exec(), part, m, off, out.data() + 8 * p0);
          double fs = 0;
          std::int64_t is = 0;
          for (std::int64_t i = p0; i < p0 + m; ++i) {
            if (f.view.is_null(c, i)) continue;
            if (isf)
              fs += f.view.column<double>(c)[i];
            else
              is += f.view.column<std::int64_t>(c)[i];
          }
          foff += fs;
          ioff += is;
        }
        // Integers, and x (exactly summable): bitwise. f and y (NaN, mixed magnitudes): the device sums in
        // ordered_scan.inl's fixed order, so bitwise up to kOrderedScanTile rows into each partition (its offset
        // first, as the host's) and within rounding after them, with NaN and the infinities where the host has them.
        if (!isf || std::string(column) == "x") {
          EXPECT_EQ(std::memcmp(out.data(), host.view.data(c), out.size()), 0)
              << name(p) << " n=" << n << " " << column;
          continue;
        }
        double scale = 0;  // the sum of the magnitudes so far: the bound of the rounding of any order of the sums
        for (std::int64_t i = 0; i < n; ++i) {
          const double want = host.view.column<double>(c)[i], x = f.view.column<double>(c)[i];
          if (!f.view.is_null(c, i) && std::isfinite(x)) scale += std::fabs(x);
          double got;
          std::memcpy(&got, out.data() + 8 * i, 8);
          if (i % rpp < 128 || !std::isfinite(want)) {
            ASSERT_TRUE(same_bits(got, want) || (std::isnan(got) && std::isnan(want)))
                << name(p) << " n=" << n << " " << column << " row " << i << ": " << got << ", host " << want;
          } else {
            ASSERT_LE(std::fabs(got - want), 1e-13 * scale)
                << name(p) << " n=" << n << " " << column << " row " << i << ": " << got << ", host " << want;
          }
        }
      }
    }
}

// to_array's cast (OpsKernels::column_values) against the host's to_array of the same frame: doubles bitwise (a
// masked row NaN), int64 values, and the first masked row where the host refuses a null as int64.
TEST(KernelOps, ColumnValuesAreToArraysValues) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random)) {
      const HostFrame f = host_frame(engine, make_batch(n, p, 75), 1000);
      for (const char* column : {"i", "f", "b", "t", "x", "y", "z"}) {
        const std::size_t c = f.schema().index_of(column);
        const std::string what = std::string(name(p)) + " n=" + std::to_string(n) + " " + column;
        const std::vector<double> want = sf::to_array<double>(f.frame, column).gather_all();
        std::vector<double> got(static_cast<std::size_t>(n));
        CountingScratch scratch;
        EXPECT_EQ(fk::OpsKernels<Reference>::column_values(scratch.exec(), f.column(c), n, true, got.data()), -1)
            << what;
        ASSERT_EQ(got.size(), want.size()) << what;
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0) << what;
        if (f.schema().type(c) == ElementType::float64) continue;
        std::vector<std::int64_t> ints(static_cast<std::size_t>(n), 0);
        const std::int64_t first_null =
            fk::OpsKernels<Reference>::column_values(scratch.exec(), f.column(c), n, false, ints.data());
        try {
          const std::vector<std::int64_t> want_ints = sf::to_array<std::int64_t>(f.frame, column).gather_all();
          EXPECT_EQ(first_null, -1) << what;
          EXPECT_EQ(ints, want_ints) << what;
        } catch (const slab::TypeError& e) {
          EXPECT_NE(e.message().find("has a null at row " + std::to_string(first_null) + ";"), std::string::npos)
              << what << ": " << e.message();
        }
      }
    }
}

TEST(KernelOps, ShiftAndDiffAreTheHosts) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random))
      for (std::int64_t periods : {1, 3, -2, 0, 5000})
        for (bool diff : {false, true}) {
          if (n == kLarge && periods != 3) continue;  // one shift and one diff at 2^20 + 1 rows
          const std::int64_t rpp = 700;
          const HostFrame f = host_frame(engine, make_batch(n, p, 75), rpp);
          const std::vector<std::string> cols = diff ? std::vector<std::string>{"x", "y", "z", "i"}
                                                     : std::vector<std::string>{"i", "f", "b", "s", "t", "z"};
          const Rows host = rows_of(diff ? sf::diff(f.frame, periods, cols) : sf::shift(f.frame, periods, cols));
          for (const auto& column : cols) {
            const std::size_t c = f.schema().index_of(column);
            const std::size_t es = slab::element_size(f.schema().type(c));
            std::vector<std::byte> out(static_cast<std::size_t>(n) * es);
            std::vector<std::uint8_t> valid(static_cast<std::size_t>(n), 9);
            const bool masked = f.schema().type(c) != ElementType::string;
            for (std::int64_t p0 = 0; p0 < n; p0 += rpp) {
              const std::int64_t m = std::min(rpp, n - p0);
              CountingScratch scratch;
              fk::OpsKernels<Reference>::shift(scratch.exec(), f.column(c), n, p0, m, periods, diff,
                                               out.data() + es * p0, masked ? valid.data() + p0 : nullptr);
            }
            const std::string what = std::string(name(p)) + " n=" + std::to_string(n) + (diff ? " diff " : " shift ") +
                                     std::to_string(periods) + " " + column;
            EXPECT_EQ(std::memcmp(out.data(), host.view.data(c), out.size()), 0) << what;
            if (masked && n) EXPECT_EQ(std::memcmp(valid.data(), host.view.valid(c), valid.size()), 0) << what;
          }
        }
}

TEST(KernelPipelines, SortWordsAndPermutationAreSortValues) {
  slab::testing::Engine engine;
  const std::vector<std::vector<sf::SortKey>> keysets{
      {{"i", true}}, {{"f", false}}, {{"s", true}, {"y", false}}, {{"b", false}, {"t", true}, {"i", false}}};
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random))
      for (const auto& keys : keysets)
        for (sf::NullsPosition nulls : {sf::NullsPosition::first, sf::NullsPosition::last}) {
          const HostFrame f = host_frame(engine, make_batch(n, p, 76), 2000);
          const Rows host = rows_of(sf::sort_values(f.frame, keys, nulls));
          std::vector<fk::SortColumn> cols;
          for (const auto& k : keys) cols.push_back({f.column(f.schema().index_of(k.column)), k.ascending});
          std::vector<std::vector<std::uint64_t>> words(2 * keys.size(),
                                                        std::vector<std::uint64_t>(static_cast<std::size_t>(n)));
          std::vector<std::uint64_t*> wp;
          for (auto& w : words) wp.push_back(w.data());
          CountingScratch scratch;
          fk::KeyKernels<Reference>::sort_words(scratch.exec(), cols.data(), static_cast<int>(cols.size()),
                                                nulls == sf::NullsPosition::first, n, wp.data());
          std::vector<int> bits;
          for (std::size_t w = 0; w < words.size(); ++w) bits.push_back(w % 2 ? 64 : 1);
          std::vector<const std::uint64_t*> cw(wp.begin(), wp.end());
          std::vector<std::int64_t> perm = n_rows(n);
          fk::SortKernels<Reference>::permutation(scratch.exec(), cw.data(), static_cast<int>(cw.size()), bits.data(),
                                                  n, perm.data());
          expect_same_rows(
              take(f, perm).view, host.view,
              std::string(name(p)) + " n=" + std::to_string(n) + " sort by " + std::to_string(keys.size()));
        }
}

TEST(KernelPipelines, HashRouteAndGroupingAreTheShuffle) {
  slab::testing::Engine engine;
  for (Profile p : profiles())
    for (std::int64_t n : sizes(p == Profile::random))
      for (int nparts : {1, 3, 8}) {
        const HostFrame f = host_frame(engine, make_batch(n, p, 77), 1500);
        const std::vector<std::string> keys{"s", "i", "f"};
        sf::Frame shuffled = sf::shuffle(f.frame, keys, nparts);
        shuffled.persist();
        std::vector<std::uint64_t> dh;
        for (const auto& s : *f.schema().dictionary(3)) dh.push_back(sf::detail::hash_bytes(s));
        std::vector<fk::HashColumn> hc;
        for (const auto& k : keys) {
          const std::size_t c = f.schema().index_of(k);
          hc.push_back({f.column(c), c == 3 ? dh.data() : nullptr});
        }
        std::vector<std::uint64_t> hashes(static_cast<std::size_t>(n));
        std::vector<std::uint32_t> bucket(static_cast<std::size_t>(n));
        std::vector<std::int64_t> rows = n_rows(n), offsets(nparts + 1);
        CountingScratch scratch;
        fk::PartitionKernels<Reference>::hash_rows(scratch.exec(), hc.data(), 3, n, hashes.data());
        fk::PartitionKernels<Reference>::hash_buckets(scratch.exec(), hashes.data(), n, 1, nparts, bucket.data());
        fk::PartitionKernels<Reference>::group_by_bucket(scratch.exec(), bucket.data(), n, nparts, rows.data(),
                                                         offsets.data());
        for (int j = 0; j < nparts; ++j) {
          auto [pin, host] = sf::view_chunk(shuffled.partitions()[j]);
          const std::vector<std::int64_t> mine(rows.begin() + offsets[j], rows.begin() + offsets[j + 1]);
          expect_same_rows(take(f, mine).view, host,
                           std::string(name(p)) + " n=" + std::to_string(n) + " partition " + std::to_string(j));
        }
      }
}

}  // namespace
