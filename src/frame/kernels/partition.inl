#pragma once
// The composition of partition.hpp: per-row route functors (the SLAB_HD hash and record comparisons of
// key_words_hd.hpp) and a stable radix sort of (bucket, row) pairs over the bucket's bits for the grouping.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <string>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

struct HashRow {
  HashColumn keys[kMaxKeyColumns];
  int ncols;
  std::uint64_t* hashes;
  std::int64_t stride;  ///< hashes[j] is row j * stride's
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t i = j * stride;
    std::uint64_t h = kRowHashSeed;
    for (int k = 0; k < ncols; ++k) {
      const ColumnView& c = keys[k].column;
      std::uint64_t v = 0;
      switch (c.type) {
        case ElementType::string: {
          const std::int32_t code = static_cast<const std::int32_t*>(c.data)[i];
          v = code < 0 ? kNullWord : keys[k].dict_hash[code];
          break;
        }
        case ElementType::float64:
          v = float_hash_word(static_cast<const double*>(c.data)[i]);
          break;
        case ElementType::boolean:
          v = static_cast<const std::uint8_t*>(c.data)[i];
          break;
        default:
          v = static_cast<std::uint64_t>(static_cast<const std::int64_t*>(c.data)[i]);
          break;
      }
      if (c.valid && !c.valid[i]) v = kNullWord;
      h = row_hash_step(h, v);
    }
    hashes[j] = h;
  }
};

struct HashBucket {
  int nranks, parts;
  SLAB_HD std::uint32_t operator()(std::uint64_t h) const { return shuffle_bucket(h, nranks, parts); }
};

struct RangeBucket {
  const std::uint64_t* words[kMaxKeyWords];
  int nwords;
  bool row_word;
  std::int64_t first_row;
  const std::uint64_t* splitters;
  std::int64_t nsplit;
  std::uint32_t* bucket;

  /// record(i) < splitter s, lexicographically.
  SLAB_HD bool less(std::int64_t i, std::int64_t s) const {
    const int rw = nwords + (row_word ? 1 : 0);
    const std::uint64_t* sp = splitters + s * rw;
    for (int w = 0; w < nwords; ++w) {
      const std::uint64_t a = words[w][i];
      if (a != sp[w]) return a < sp[w];
    }
    if (row_word) {
      const auto a = static_cast<std::uint64_t>(first_row + i);
      if (a != sp[nwords]) return a < sp[nwords];
    }
    return false;
  }
  SLAB_HD void operator()(std::int64_t i) const {
    std::int64_t lo = 0, hi = nsplit;  // number of splitters <= record
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (less(i, mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    bucket[i] = static_cast<std::uint32_t>(lo);
  }
};

/// The index of h among the sorted hot[0, nhot), or nhot when it is not hot.
SLAB_HD inline std::int64_t find_hot(const std::uint64_t* hot, std::int64_t nhot, std::uint64_t h) {
  std::int64_t lo = 0, hi = nhot;  // lower bound of h in hot
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (hot[mid] < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < nhot && hot[lo] == h ? lo : nhot;
}

struct HotKeyBucket {
  const std::uint64_t* hashes;
  const std::uint64_t* hot;
  const std::uint8_t* hot_side;
  std::int64_t nhot;
  int nranks, parts, side;
  std::uint32_t* bucket;
  SLAB_HD void operator()(std::int64_t i) const {
    const std::uint64_t h = hashes[i];
    const std::int64_t lo = find_hot(hot, nhot, h);
    if (lo == nhot) {
      bucket[i] = shuffle_bucket(h, nranks, parts);
    } else if (hot_side[lo] == side) {
      bucket[i] = kDropBucket;
    } else {
      const auto nb = static_cast<std::uint64_t>(nranks) * static_cast<std::uint64_t>(parts);
      bucket[i] = static_cast<std::uint32_t>((h + static_cast<std::uint64_t>(i)) % nb);
    }
  }
};

/// Whether row i's hash is hot with `side` replicated (the rows hot_key_buckets drops for that side).
struct HotRowOfSide {
  const std::uint64_t* hashes;
  const std::uint64_t* hot;
  const std::uint8_t* hot_side;
  std::int64_t nhot;
  int side;
  SLAB_HD bool operator()(std::int64_t i) const {
    const std::int64_t at = find_hot(hot, nhot, hashes[i]);
    return at < nhot && hot_side[at] == side;
  }
};

/// The sort key of a bucket: dropped (and out-of-range) rows after every bucket.
struct BucketKey {
  std::uint64_t nbuckets;
  SLAB_HD std::uint64_t operator()(std::uint32_t b) const { return b < nbuckets ? b : nbuckets; }
};

struct WordHash {
  const std::uint64_t* words[kMaxKeyWords];
  int nwords;
  std::uint64_t* hashes;
  SLAB_HD void operator()(std::int64_t i) const {
    if (nwords == 1) {
      hashes[i] = route_hash(words[0][i]);
      return;
    }
    std::uint64_t h = kHashWordsSeed;
    for (int w = 0; w < nwords; ++w) h = hash_words_step(h, words[w][i]);
    hashes[i] = h;
  }
};

}  // namespace detail

template <class B>
void PartitionKernels<B>::word_hashes(const Exec& exec, const std::uint64_t* const* words, int nwords,
                                      std::int64_t n, std::uint64_t* hashes) {
  SLAB_EXPECTS(nwords >= 1 && nwords <= kMaxKeyWords, InvalidArgument,
               "partition kernels: " + std::to_string(nwords) + " key words (1 to " + std::to_string(kMaxKeyWords) +
                   ")");
  if (n <= 0) return;
  detail::WordHash f{{}, nwords, hashes};
  for (int w = 0; w < nwords; ++w) f.words[w] = words[w];
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, f);
}

template <class B>
void PartitionKernels<B>::hash_rows(const Exec& exec, const HashColumn* keys, int ncols, std::int64_t n,
                                    std::uint64_t* hashes) {
  hash_sample(exec, keys, ncols, n, 1, hashes);
}

template <class B>
void PartitionKernels<B>::hash_sample(const Exec& exec, const HashColumn* keys, int ncols, std::int64_t n,
                                      std::int64_t stride, std::uint64_t* hashes) {
  SLAB_EXPECTS(ncols >= 0 && ncols <= kMaxKeyColumns, InvalidArgument,
               "hash_rows: " + std::to_string(ncols) + " key columns (at most " + std::to_string(kMaxKeyColumns) + ")");
  SLAB_EXPECTS(stride >= 1, InvalidArgument, "hash_sample: the stride must be at least 1");
  if (n <= 0) return;
  B b(exec);
  detail::HashRow f{};
  for (int k = 0; k < ncols; ++k) f.keys[k] = keys[k];
  f.ncols = ncols;
  f.hashes = hashes;
  f.stride = stride;
  thrust::counting_iterator<std::int64_t> rows(0);
  thrust::for_each(b.policy(), rows, rows + (n + stride - 1) / stride, f);
}

template <class B>
void PartitionKernels<B>::hash_buckets(const Exec& exec, const std::uint64_t* hashes, std::int64_t n, int nranks,
                                       int parts_per_rank, std::uint32_t* bucket) {
  SLAB_EXPECTS(nranks >= 1 && parts_per_rank >= 1, InvalidArgument, "hash_buckets: nranks and parts must be >= 1");
  if (n <= 0) return;
  B b(exec);
  thrust::transform(b.policy(), hashes, hashes + n, bucket, detail::HashBucket{nranks, parts_per_rank});
}

template <class B>
void PartitionKernels<B>::range_buckets(const Exec& exec, const std::uint64_t* const* words, int nwords, bool row_word,
                                        std::int64_t first_row, std::int64_t n, const std::uint64_t* splitters,
                                        std::int64_t nsplit, std::uint32_t* bucket) {
  SLAB_EXPECTS(nwords >= 0 && nwords + (row_word ? 1 : 0) <= kMaxKeyWords, InvalidArgument,
               "range_buckets: " + std::to_string(nwords) + " words (at most " + std::to_string(kMaxKeyWords) + ")");
  if (n <= 0) return;
  B b(exec);
  detail::RangeBucket f{};
  for (int w = 0; w < nwords; ++w) f.words[w] = words[w];
  f.nwords = nwords;
  f.row_word = row_word;
  f.first_row = first_row;
  f.splitters = splitters;
  f.nsplit = nsplit;
  f.bucket = bucket;
  thrust::counting_iterator<std::int64_t> rows(0);
  thrust::for_each(b.policy(), rows, rows + n, f);
}

template <class B>
void PartitionKernels<B>::hot_key_buckets(const Exec& exec, const std::uint64_t* hashes, std::int64_t n, int nranks,
                                          int parts_per_rank, const std::uint64_t* hot, const std::uint8_t* hot_side,
                                          std::int64_t nhot, int side, std::uint32_t* bucket) {
  SLAB_EXPECTS(nranks >= 1 && parts_per_rank >= 1, InvalidArgument, "hot_key_buckets: nranks and parts must be >= 1");
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> rows(0);
  thrust::for_each(b.policy(), rows, rows + n,
                   detail::HotKeyBucket{hashes, hot, hot_side, nhot, nranks, parts_per_rank, side, bucket});
}

template <class B>
std::int64_t PartitionKernels<B>::hot_rows(const Exec& exec, const std::uint64_t* hashes, std::int64_t n,
                                           const std::uint64_t* hot, const std::uint8_t* hot_side, std::int64_t nhot,
                                           int side, std::int64_t* rows) {
  if (n <= 0 || nhot <= 0) return 0;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  std::int64_t* end =
      thrust::copy_if(b.policy(), i, i + n, rows, detail::HotRowOfSide{hashes, hot, hot_side, nhot, side});
  return end - rows;
}

template <class B>
std::int64_t PartitionKernels<B>::group_by_bucket(const Exec& exec, const std::uint32_t* bucket, std::int64_t n,
                                                  std::int64_t nbuckets, std::int64_t* rows, std::int64_t* offsets) {
  SLAB_EXPECTS(nbuckets >= 1 && nbuckets < kDropBucket, InvalidArgument, "group_by_bucket: bad bucket count");
  B b(exec);
  if (n <= 0) {
    b.zero(offsets, static_cast<std::size_t>(nbuckets + 1) * sizeof(std::int64_t));
    return 0;
  }
  using slab::kernels::Scratch;
  Scratch<std::uint64_t, B> keys(b, n), sorted(b, n);
  Scratch<std::int64_t, B> order(b, n);
  const auto nb = static_cast<std::uint64_t>(nbuckets);
  thrust::transform(b.policy(), bucket, bucket + n, keys.get(), detail::BucketKey{nb});
  thrust::sequence(b.policy(), order.get(), order.get() + n);
  b.sort_pairs(keys.get(), sorted.get(), order.get(), rows, n, 0, bits_for(nb));
  // offsets[b] = the first sorted position with key >= b, for b = 0 .. nbuckets.
  thrust::counting_iterator<std::uint64_t> values(0);
  thrust::lower_bound(b.policy(), sorted.get(), sorted.get() + n, values, values + nbuckets + 1, offsets);
  std::int64_t kept = 0;
  b.to_host(&kept, offsets + nbuckets, sizeof kept);
  return kept;
}

}  // namespace slab::frame::kernels
