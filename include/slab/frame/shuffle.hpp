#pragma once
/// @file shuffle.hpp
/// @brief Hash shuffle: move every row to the rank (and local partition) given by a hash of its key columns,
/// so equal keys meet. Used by unique/nunique/drop_duplicates/value_counts, groupby and merge.
///
/// Keys hash by value, not by dictionary code (strings hash their bytes, int64 and timestamp their value,
/// float64 its bits with -0.0 = 0.0 and every NaN equal, nulls one constant), so two frames with different
/// dictionaries shuffled on compatible keys with the same nparts put equal keys in the same partition.
///
/// Skew: a key value always goes to one rank, so a frame dominated by a few keys lands mostly on a few ranks
/// (one hot key = one rank holds all its rows). Reduce per partition first (groupby's map-side combine) where
/// possible. Memory: the shuffle pins all of this rank's input partitions at once and receives into one
/// buffer before splitting it into the output partitions.

#include <cstdint>
#include <string>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame {

/// The 64-bit hash of row `row`'s key columns `keys` of `batch` (schema gives string dictionaries).
[[nodiscard]] std::uint64_t hash_row(const BatchView& batch, const Schema& schema, const std::vector<std::size_t>& keys,
                                     std::int64_t row);
/// Hashes of every row (size batch.nrows()).
[[nodiscard]] std::vector<std::uint64_t> hash_rows(const BatchView& batch, const Schema& schema,
                                                   const std::vector<std::size_t>& keys);

/// The destination of a row hash: rank = hash % nranks, local partition = (hash / nranks) % parts_per_rank.
[[nodiscard]] inline int shuffle_rank(std::uint64_t hash, int nranks) noexcept {
  return static_cast<int>(hash % static_cast<std::uint64_t>(nranks));
}
[[nodiscard]] inline int shuffle_part(std::uint64_t hash, int nranks, int parts_per_rank) noexcept {
  return static_cast<int>((hash / static_cast<std::uint64_t>(nranks)) % static_cast<std::uint64_t>(parts_per_rank));
}

/**
 * @brief Shuffle `frame` by `key_columns`: lazy; one collective task (alltoallv of rows) plus one task per
 * output partition. The result has `nparts` partitions on every rank (nparts >= 1; the global partition of a
 * key is rank * nparts + part as given by shuffle_rank/shuffle_part). Row order within a partition: by source
 * rank, then source order. Same schema. Collective (every rank calls it in the same order).
 * @throws InvalidArgument for unknown key columns or nparts < 1.
 */
[[nodiscard]] Frame shuffle(const Frame& frame, const std::vector<std::string>& key_columns, int nparts = 1);

}  // namespace slab::frame
