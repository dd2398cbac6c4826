#pragma once
/// @file partition.hpp
/// @brief Routing rows to shuffle buckets and grouping them by bucket, as the one partitioner
/// (frame/partitioner.hpp) routes: the row hash of hash_rows (shuffle.cpp), the hash route (bucket_of_hash: the
/// hash's high bits scaled to nranks * nparts buckets), the range route of sort_values (bucket_of_key: the number
/// of splitters <= the row's record), merge's hot-key split, and the stable counting sort of shuffle_round (rows
/// grouped by bucket, row order kept within a bucket, dropped rows left out). Entry points of partition.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"
#include "frame/kernels/key_words_hd.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// A key column of the row hash; for strings, `dict_hash[code]` (backend memory) is the FNV-1a hash of the
/// code's dictionary string (frame/hash_bytes.hpp), so that equal strings hash alike under any dictionary.
struct HashColumn {
  ColumnView column;
  const std::uint64_t* dict_hash = nullptr;
};

template <class B>
struct PartitionKernels {
  /// hash_rows: hashes[i] = the 64-bit hash of row i's key columns (host array of ncols). Asynchronous.
  static void hash_rows(const Exec& exec, const HashColumn* keys, int ncols, std::int64_t n, std::uint64_t* hashes);
  /// hash_rows of every stride-th row: hashes[j] = the hash of row j * stride, for j < ceil(n / stride) (merge's
  /// sample of key hashes). Asynchronous.
  static void hash_sample(const Exec& exec, const HashColumn* keys, int ncols, std::int64_t n, std::int64_t stride,
                          std::uint64_t* hashes);

  /// groupby's record hash: hashes[i] = route_hash(words[0][i]) for one word, else hash_words of the row's
  /// nwords words (frame/hash_table.hpp; words: host array of backend pointers). Asynchronous.
  static void word_hashes(const Exec& exec, const std::uint64_t* const* words, int nwords, std::int64_t n,
                          std::uint64_t* hashes);

  /// shuffle()'s route: bucket[i] = shuffle_bucket(hashes[i], nranks, parts_per_rank). Asynchronous.
  static void hash_buckets(const Exec& exec, const std::uint64_t* hashes, std::int64_t n, int nranks,
                           int parts_per_rank, std::uint32_t* bucket);

  /**
   * @brief sort_values' route: bucket[i] = the number of splitters <= row i's record, records compared
   * lexicographically. A record is the nwords word columns `words` (host array of backend pointers), then, when
   * `row_word`, the row's global index first_row + i as a last word. `splitters`: nsplit records of
   * nwords + row_word words each, record-major, sorted (backend memory). Asynchronous.
   */
  static void range_buckets(const Exec& exec, const std::uint64_t* const* words, int nwords, bool row_word,
                            std::int64_t first_row, std::int64_t n, const std::uint64_t* splitters, std::int64_t nsplit,
                            std::uint32_t* bucket);

  /**
   * @brief merge's hash route with hot keys split (merge.cpp): for a row whose hash is not hot, its
   * shuffle_bucket; for a hot hash replicated from this side (hot_side[k] == side), kDropBucket (the row goes to
   * every partition pair through the replicated rows instead); for a hot hash of the other side, bucket
   * (hash + i) % (nranks * parts_per_rank), spreading it. `hot`: nhot sorted hashes with their replicated side
   * (backend memory). Asynchronous.
   */
  static void hot_key_buckets(const Exec& exec, const std::uint64_t* hashes, std::int64_t n, int nranks,
                              int parts_per_rank, const std::uint64_t* hot, const std::uint8_t* hot_side,
                              std::int64_t nhot, int side, std::uint32_t* bucket);

  /// merge's replicated rows: rows[0, k) = the i < n whose hash is hot (in the sorted hot[0, nhot)) with
  /// hot_side == side, in row order: the rows hot_key_buckets drops for `side`. rows: capacity n. Returns k
  /// (synchronises).
  static std::int64_t hot_rows(const Exec& exec, const std::uint64_t* hashes, std::int64_t n, const std::uint64_t* hot,
                               const std::uint8_t* hot_side, std::int64_t nhot, int side, std::int64_t* rows);

  /**
   * @brief shuffle_round's grouping: rows[offsets[b] .. offsets[b + 1]) are the rows with bucket b, in row order
   * (a stable counting sort), for b < nbuckets; rows with kDropBucket are left out. bucket[i] must be
   * < nbuckets or kDropBucket. rows: capacity n; offsets: nbuckets + 1 (backend). Returns the rows kept,
   * offsets[nbuckets] (synchronises once).
   */
  static std::int64_t group_by_bucket(const Exec& exec, const std::uint32_t* bucket, std::int64_t n,
                                      std::int64_t nbuckets, std::int64_t* rows, std::int64_t* offsets);
};

}  // namespace slab::frame::kernels
