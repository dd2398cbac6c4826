#pragma once
/// @file sort.hpp
/// @brief sort_values: a distributed sample sort (pandas `DataFrame.sort_values(by, ascending, na_position,
/// kind="stable")`).
///
/// Each rank encodes its rows' keys as order-preserving words (one null word and one value word per key
/// column, then the global row index, so every key is unique and ties keep their original order), draws
/// evenly spaced samples from each partition in proportion to its row count, and all samples are gathered;
/// p*nparts-1 splitters taken at even quantiles of the sorted samples cut the key space into p*nparts buckets
/// (rank b / nparts, output partition b % nparts: the frame layer's one range partitioner). Rows stream to their
/// buckets through shuffle_routed (shuffle.hpp: one collective round per input partition, spillable pieces), and each
/// bucket is sorted locally by one task. The result is globally sorted in rank order, then partition order, stable;
/// loads follow the samples (duplicated keys spread too, since the row index breaks ties). Out of core: nparts is
/// chosen so that a bucket fits well under the memory limit (choose_nparts), so no task holds more than about
/// one input partition plus one bucket.
///
/// Order per column: int64/timestamp/bool by value, float64 by value (-0.0 == 0.0; NaN is null), string by
/// dictionary code (= lexicographic byte order, the dictionary being sorted). Nulls (masked, NaN, code -1) go
/// first or last whatever the direction, as in pandas.

#include <initializer_list>
#include <string>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame {

/// One sort key.
struct SortKey {
  std::string column;
  bool ascending = true;
};

/// Where nulls go (for every key column).
enum class NullsPosition : std::uint8_t { first, last };

/**
 * @brief The rows of `frame` sorted by `keys` (lexicographically, first key first), stable. The result has
 * nparts partitions on every rank (choose_nparts; at least enough for about `rows_per_partition` rows each
 * when > 0), the same schema, and every rank's rows sort after the previous rank's. Collective (runs the
 * input's graph to count and sample it; one allgather of samples; the exchange itself is lazy).
 * @throws InvalidArgument (every rank) for no keys or an unknown column.
 */
[[nodiscard]] Frame sort_values(const Frame& frame, const std::vector<SortKey>& keys,
                                NullsPosition nulls = NullsPosition::last, std::int64_t rows_per_partition = 0);
/// Same with one direction for every column.
[[nodiscard]] Frame sort_values(const Frame& frame, const std::vector<std::string>& by, bool ascending = true,
                                NullsPosition nulls = NullsPosition::last, std::int64_t rows_per_partition = 0);

/// sort_values(f, {{"k1", true}, {"name", false}}): the braced (column, ascending) pairs (an initializer_list
/// so that the pairs never read as strings). Collective, as above.
[[nodiscard]] Frame sort_values(const Frame& frame, std::initializer_list<SortKey> keys,
                                NullsPosition nulls = NullsPosition::last, std::int64_t rows_per_partition = 0);
/// sort_values(f, {"k1", "k2"}, ascending): braced names (never read as SortKeys). Collective, as above.
[[nodiscard]] Frame sort_values(const Frame& frame, std::initializer_list<const char*> by, bool ascending = true,
                                NullsPosition nulls = NullsPosition::last, std::int64_t rows_per_partition = 0);

}  // namespace slab::frame
