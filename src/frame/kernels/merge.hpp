#pragma once
/// @file merge.hpp
/// @brief The join of one probe batch with one build batch (merge.cpp's build_table + probe_pairs): the
/// (probe row, build row) pairs in the host's output order. Sort-based on the device: the build side sorted by
/// key words (stable), each probe key's matches found by binary search (lower/upper bound), the matches
/// expanded; or, for one dense int64 key (the host's direct array), a counting sort of the build rows over the
/// key range and a table lookup. Entry points of merge.inl. (The hot-key split is a route:
/// PartitionKernels::hot_key_buckets.)
///
/// Output order, as the host's: for each probe row in order, its matching build rows in build row order, or
/// (row, -1) when it has none and the probe side is kept (left/right/outer); then, when the build side is kept
/// (outer), (-1, row) for every unmatched build row (null keys included) in build row order.
///
/// Two passes, as every variable-size output: count() fills a caller-allocated workspace and returns the number
/// of pairs (one synchronisation); the caller allocates the output; fill() writes it from the workspace.

#include <cstddef>
#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// One side's keys: encoded key words (width columns, the same encoding on both sides) and keep flags
/// (nullptr = every key valid; a dropped key matches nothing).
struct JoinKeys {
  const std::uint64_t* const* words = nullptr;  ///< host array of width backend pointers
  const std::uint8_t* keep = nullptr;
  std::int64_t n = 0;
};

/// One side's single int64/timestamp key column for the direct array (valid: nullptr = all valid).
struct JoinDirectKeys {
  const std::int64_t* keys = nullptr;
  const std::uint8_t* valid = nullptr;
  std::int64_t n = 0;
};

/// Which sides are kept: left/right joins keep the probe side, outer joins both.
struct JoinSides {
  bool keep_probe = false;
  bool keep_build = false;
};

/// One side's column for the output gather: string codes are remapped into the output's dictionary (backend
/// memory, one int64 per code; nullptr = identity).
struct JoinSource {
  ColumnView column;
  const std::int64_t* remap = nullptr;
};

/**
 * @brief A build side sorted once for many probe batches (a broadcast join's): the build rows in key order
 * (`sorted`: the m rows with a key for key words; all n rows, those without a slot last, for the direct array)
 * and, for key words, their sorted words (width x m) and the segment offsets of equal keys (groups + 1); for the
 * direct array the slot table (span + 1 first positions) and the sorted rows' slots. Pointers into backend
 * memory laid out by JoinKernels::prepared_at; the scalars travel beside it (host).
 */
struct PreparedBuild {
  std::int64_t n = 0;       ///< build rows
  int width = 0;            ///< key words (0 for the direct array)
  std::uint64_t span = 0;   ///< direct array slots (0: key words)
  std::int64_t lo = 0;      ///< direct array: the key of slot 0
  std::int64_t m = 0;       ///< rows with a key
  std::int64_t groups = 0;  ///< key words: distinct keys
  std::int64_t* sorted = nullptr;
  std::uint64_t* words[kMaxKeyWords] = {};
  std::int64_t* offsets = nullptr;
  std::int64_t* table = nullptr;
  std::uint64_t* slots = nullptr;
  [[nodiscard]] bool direct() const noexcept { return span > 0; }
};

template <class B>
struct JoinKernels {
  /// Bytes of the workspace of count()/fill() for these side sizes (backend memory, 256-byte aligned).
  static std::size_t workspace_bytes(std::int64_t probe_n, std::int64_t build_n);

  /// Bytes of a PreparedBuild's memory for build_n rows of `width` key words, or (span > 0) a direct array.
  static std::size_t prepared_bytes(std::int64_t build_n, int width, std::uint64_t span);
  /// A PreparedBuild's arrays laid out in `memory` (prepared_bytes of these sizes); its m, groups and lo unset.
  static PreparedBuild prepared_at(void* memory, std::int64_t build_n, int width, std::uint64_t span);
  /// Sorts the build side into `at` (prepared_at of width key words) and sets at.m and at.groups. Synchronises.
  static void prepare(const Exec& exec, const JoinKeys& build, const int* bits, PreparedBuild& at);
  /// The direct array's counting sort into `at` (prepared_at of span slots), keys from lo; sets at.lo and at.m
  /// (the host's condition for using it: count_direct's). Synchronises.
  static void prepare_direct(const Exec& exec, const JoinDirectKeys& build, std::int64_t lo, PreparedBuild& at);
  /// Pass 1 against a prepared build side: every probe key's matches (key words, or for a direct array's
  /// `build` the probe's JoinDirectKeys). Returns the pairs.
  static std::int64_t count_prepared(const Exec& exec, const JoinKeys& probe, const PreparedBuild& build,
                                     JoinSides kind, void* workspace);
  static std::int64_t count_prepared_direct(const Exec& exec, const JoinDirectKeys& probe, const PreparedBuild& build,
                                            JoinSides kind, void* workspace);

  /// Pass 1 with key words: sorts the build side, finds every probe key's matches. Returns the pairs.
  static std::int64_t count(const Exec& exec, const JoinKeys& probe, const JoinKeys& build, int width, const int* bits,
                            JoinSides kind, void* workspace);

  /**
   * @brief Pass 1 with the direct array: build keys lie in [lo, lo + span) where valid (the host's condition for
   * using it: span <= max(4 n, 2^16) and <= 2^27); probe keys outside it match nothing. Returns the pairs.
   */
  static std::int64_t count_direct(const Exec& exec, const JoinDirectKeys& probe, const JoinDirectKeys& build,
                                   std::int64_t lo, std::uint64_t span, JoinSides kind, void* workspace);

  /// Pass 2: probe_rows[j], build_rows[j] for j < pairs (-1 = no row), from count()'s workspace. Asynchronous.
  static void fill(const Exec& exec, std::int64_t probe_n, std::int64_t build_n, JoinSides kind, const void* workspace,
                   std::int64_t pairs, std::int64_t* probe_rows, std::int64_t* build_rows);

  /// Whether any of rows[0, n) is -1 (a side's missing rows, which give its output columns a mask).
  /// Synchronises.
  static bool any_missing(const Exec& exec, const std::int64_t* rows, std::int64_t n);

  /**
   * @brief merge.cpp's gather_column for one output column of n rows: row i from `first` at first_rows[i], or,
   * where that is -1 and `second` is given (a key column: the build side fills the rows the probe side lacks),
   * from `second` at second_rows[i]. A row is valid when its source row exists and is valid there; values as
   * the host writes them: 8-byte types the source's bits (0 for a missing row), float64 NaN where not valid;
   * string codes remapped, -1 where not valid; booleans the byte (0 for a missing row). out_valid (when not
   * nullptr) gets the validity. Asynchronous.
   */
  static void gather(const Exec& exec, const JoinSource& first, const std::int64_t* first_rows,
                     const JoinSource* second, const std::int64_t* second_rows, std::int64_t n, void* out,
                     std::uint8_t* out_valid);
};

}  // namespace slab::frame::kernels
