#pragma once
/// @file groupby.hpp
/// @brief Sort-based groupby: sort rows by key words (stable), run-length encode the sorted keys into groups,
/// then reduce each group's rows into the SAME partial states the host keeps (groupby.cpp: count, sum,
/// Welford mean/M2, min, max, first/last with their row order, nunique by sorting (group, value) pairs),
/// groups in key order. Plus the combine of partial records (another rank's states, as groupby's final step)
/// and the finalize of states into result columns (write_result); nunique's distinct pairs, made per partition and
/// counted after the exchange as the host's count_distinct does. Entry points of groupby.inl.
///
/// Canonical order (equality with the host): a group's rows are reduced in row order, in pieces of
/// kGroupPiece consecutive rows (one sequential fold each, exactly the host's per-row fold), and a group's
/// pieces are combined in order with the host's combine (Chan's formula). A group of at most kGroupPiece rows
/// is therefore bitwise the host's state; a larger one differs from the host's single sequential fold only in
/// the rounding of float sums, means and M2 (exactly summable data: bitwise). Counts, integer sums, min, max,
/// first, last and nunique are bitwise always. combine() merges records in record order, as the host does:
/// bitwise.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/agg_hd.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// Rows per sequential piece of a group (part of the canonical order: changing it changes float results).
inline constexpr std::int64_t kGroupPiece = 512;

/// Pieces of group g (sorted positions offsets[g] .. offsets[g + 1]): ceil(length / kGroupPiece).
struct PiecesOf {
  const std::int64_t* offsets;
  SLAB_HD std::int64_t operator()(std::int64_t g) const {
    return (offsets[g + 1] - offsets[g] + kGroupPiece - 1) / kGroupPiece;
  }
};

/// A piece: its group and its sorted positions [begin, end); group < 0 for none.
struct GroupPiece {
  std::int64_t group, begin, end;
};
/// Piece r of group g.
SLAB_HD_INLINE GroupPiece group_piece(const std::int64_t* offsets, std::int64_t g, std::int64_t r) noexcept {
  const std::int64_t begin = offsets[g] + r * kGroupPiece;
  const std::int64_t end = begin + kGroupPiece < offsets[g + 1] ? begin + kGroupPiece : offsets[g + 1];
  return {g, begin, end};
}
/// Piece p of all groups, piece0 (groups + 1) the exclusive scan of PiecesOf; none past the last piece.
SLAB_HD_INLINE GroupPiece piece_at(const std::int64_t* piece0, const std::int64_t* offsets, std::int64_t groups,
                                   std::int64_t p) noexcept {
  if (p >= piece0[groups]) return {-1, 0, 0};
  const std::int64_t g = slab::kernels::segment_holding(piece0, groups, p);  // piece0[g] <= p < piece0[g + 1]
  return group_piece(offsets, g, p - piece0[g]);
}

/// groupby's aggregations (the values of slab::frame::AggOp, in its order; AggOp's median and quantile, which
/// keep no partial state, are computed on the host from the shuffled values).
enum class AggKind : std::uint8_t { sum, mean, count, size, min, max, std, var, first, last, nunique };

/// Per-group state arrays (backend memory, capacity >= the number of groups); nullptr = not wanted. What is
/// asked for is what is computed (a mean needs sum and count, std/var mean, m2 and count).
struct AggStates {
  std::int64_t* count = nullptr;
  std::uint64_t* sum = nullptr;  ///< bits of a double or an int64 (wrapping)
  double* mean = nullptr;        ///< Welford's mean (for var/std; the result's mean is sum / count)
  double* m2 = nullptr;
  std::uint64_t* min = nullptr;
  std::uint64_t* max = nullptr;
  std::uint64_t* first_order = nullptr;
  std::uint64_t* first_value = nullptr;
  std::uint64_t* last_order = nullptr;
  std::uint64_t* last_value = nullptr;
  std::int64_t* nunique = nullptr;  ///< aggregate() only: distinct non-null values of the group
};

/// An aggregated column: its values (float64 as double; int64, timestamp, bool, string codes as int64; nulls:
/// the mask, NaN, string code -1) and the states to produce.
struct AggColumn {
  ColumnView values;
  AggStates out;
};

/// The grouping of aggregate() and combine(): key words of each group (in key order) and group sizes.
struct GroupsOut {
  std::uint64_t* const* keys = nullptr;  ///< host array of width backend arrays (capacity >= groups)
  std::int64_t* size = nullptr;          ///< rows per group (records per group for combine: use `sizes` there)
  std::int64_t* first_row = nullptr;     ///< optional: the group's first row (row order)
};

/// Partial records of combine(): per record the size and per aggregation the states (as AggStates, read).
struct AggRecords {
  const AggStates* in;  ///< one per aggregation (states of each record)
  ElementType value_type = ElementType::float64;
};

template <class B>
struct GroupbyKernels {
  /**
   * @brief The local aggregation: n rows with keys `words` (host array of width backend word columns, `bits`
   * as SortKernels::permutation) and keep flags (nullptr = all kept; dropped rows join no group); row i's order
   * is order0 + i (first/last). Writes the groups in key order to `groups` and each aggregation's states.
   * Returns the number of groups (synchronises once). Scratch: about (width + 6) words per row.
   */
  static std::int64_t aggregate(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                std::int64_t n, const std::uint8_t* keep, const AggColumn* aggs, int naggs,
                                std::uint64_t order0, const GroupsOut& groups);

  /**
   * @brief combine_records: nrec partial records (keys `words`, sizes `sizes`, states per aggregation in
   * `records`) merged by key, records of a key in record order. Writes groups (size = summed sizes) and the
   * merged states into aggs[k].out (aggs[k].values.type gives the value type; its data is unused). Returns the
   * number of groups (synchronises once).
   */
  static std::int64_t combine(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                              std::int64_t nrec, const std::int64_t* sizes, const AggStates* records,
                              const AggColumn* aggs, int naggs, const GroupsOut& groups);

  /**
   * @brief nunique's distinct (group, value) pairs of one partition for the aggregation with index `agg`: the
   * kept rows grouped as aggregate() groups them, null values (mask, NaN, string code -1) dropped, each distinct
   * (group, value word) once, in (key, value word) order. out[w][j] (w < width) = the group's key words,
   * out[width][j] = the value word (float64: float_word, -0.0 as 0.0; others their int64 bits, the host's pair
   * words), out[width + 1][j] = agg. `out`: host array of width + 2 backend arrays of capacity n. Returns the
   * number of pairs (synchronises). width + 2 <= kMaxKeyWords.
   */
  static std::int64_t distinct_pairs(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                     std::int64_t n, const std::uint8_t* keep, const ColumnView& values,
                                     std::uint64_t agg, std::uint64_t* const* out);

  /**
   * @brief count_distinct: npairs pairs as distinct_pairs writes them (from any partitions and ranks: a pair
   * seen twice counts once) counted per group and aggregation: counts[a * ngroups + g] = the distinct values of
   * aggregation a (a pair's last word, < nslots) in group g. `pairs`: host array of width + 2 backend arrays;
   * `group_keys`: host array of width backend arrays of the ngroups keys, ascending (combine()'s groups), which
   * hold every pair's key (a pair of another key is ignored). `bits` as for aggregate() (width entries).
   * counts: nslots * ngroups backend int64, written here. Synchronises.
   */
  static void count_pairs(const Exec& exec, const std::uint64_t* const* pairs, int width, const int* bits,
                          std::int64_t npairs, const std::uint64_t* const* group_keys, std::int64_t ngroups, int nslots,
                          std::int64_t* counts);

  /**
   * @brief write_values: the kept rows (keep[i]) with at least one of the nvalues `values` columns not null, in row
   * order: out_words[w][j] = the row's key word w (w < width), out_values[h][j] = its value h as a double (NaN
   * where null; booleans 1 or 0, int64 converted). `out_words`, `out_values`: host arrays of backend arrays of
   * capacity n. Returns the rows (synchronises).
   */
  static std::int64_t holistic_rows(const Exec& exec, const std::uint64_t* const* words, int width, std::int64_t n,
                                    const std::uint8_t* keep, const ColumnView* values, int nvalues,
                                    std::uint64_t* const* out_words, double* const* out_values);

  /**
   * @brief combine_values for one holistic aggregation: n rows as holistic_rows writes them, from any partitions
   * and ranks (`words`: width backend arrays; `values`: one of its value columns, NaN dropped), per group of
   * `group_keys` (width backend arrays of the ngroups keys, ascending: combine()'s groups): out[k * ngroups + g] =
   * holistic_value(group g's values sorted in the IEEE total order, what[k]) (groupby/holistic.hpp; NaN for a
   * group without values) for k < nwhat (`what` a host array). Rows of a key not among the groups are ignored.
   * `bits` as for aggregate(); width + 1 <= kMaxKeyWords. out: nwhat * ngroups backend doubles. Synchronises.
   */
  static void holistic(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                       const double* values, std::int64_t n, const std::uint64_t* const* group_keys,
                       std::int64_t ngroups, const double* what, int nwhat, double* out);

  /**
   * @brief write_result for one output column: op's value per group from the states (and sizes for size) into
   * out (int64 for count/size/nunique, float64 for mean/std/var, the value type's batch representation
   * otherwise), with out_valid (when not nullptr) = whether a min/max/first/last exists. Asynchronous.
   */
  static void finalize(const Exec& exec, AggKind op, ElementType value_type, const AggStates& states,
                       const std::int64_t* sizes, std::int64_t ngroups, void* out, std::uint8_t* out_valid);
};

}  // namespace slab::frame::kernels
