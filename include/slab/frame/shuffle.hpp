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
/// possible.
///
/// Out of core: the exchange streams in rounds. Every rank runs R = max over ranks of its partition count
/// collective round tasks; round r consumes this rank's input partition r (nothing on ranks with fewer),
/// splits its rows per destination rank and output partition, does one alltoallv, and produces one
/// spillable piece per output partition (a multi-output task). Output partition j is then the concatenation
/// of its R pieces (one task). So a task holds one input partition, its send/receive buffers (about one
/// input partition each) and one round's pieces; an output partition holds about 1/nparts of this rank's
/// share. nparts = 0 picks nparts so that an output partition fits well under the memory limit.

#include <cstdint>
#include <functional>
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

/**
 * @brief Shuffle `frame` by `key_columns`: lazy; R collective round tasks (see above) plus one task per
 * output partition. The result has `nparts` partitions on every rank (nparts = 0: choose_nparts); a key's global
 * partition rank * nparts + part comes from its row hash by the frame layer's one hash partitioner (the hash's
 * high bits scaled to the rank * nparts buckets), the rule groupby and merge route by too. Row order within a
 * partition: by source rank, then source order. Same schema. Collective (every rank calls it in the same
 * order, with the same nparts).
 * @throws InvalidArgument for unknown key columns or nparts < 0.
 */
[[nodiscard]] Frame shuffle(const Frame& frame, const std::vector<std::string>& key_columns, int nparts = 0);

/// Fills bucket[i] (resized to batch.nrows()) with row i's global destination, rank * nparts + part, or
/// kDropRow to leave the row out.
inline constexpr std::uint32_t kDropRow = 0xFFFFFFFFu;
using RouteFn = std::function<void(const BatchView& batch, std::vector<std::uint32_t>& bucket)>;

/**
 * @brief The streaming exchange behind shuffle (and sort_values) with any routing: `nparts` (>= 1) output
 * partitions per rank; `route` runs inside the round tasks. Collective; lazy.
 */
[[nodiscard]] Frame shuffle_routed(const Frame& frame, int nparts, RouteFn route, const std::string& name = "shuffle");

/**
 * @brief Output partitions per rank so that one fits the memory manager's budget for the eight buffers a shuffle
 * holds around it (MemoryManager::budget(8): about 1/8 of the limit when nothing is pinned or reserved): from the rows
 * where every partition's count is known (Frame::partition_rows), else one per input partition (averaged over
 * ranks), at least `at_least`. Collective (a few allreduces).
 */
[[nodiscard]] int choose_nparts(const Frame& frame, int at_least = 1);

}  // namespace slab::frame
