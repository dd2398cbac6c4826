#pragma once
/// @file merge.hpp
/// @brief Distributed merge/join (pandas' merge(on=...)): broadcast of the smaller side below a size
/// threshold (allgatherv; the other side is never moved, so a skewed key cannot pile rows on one rank and the
/// output is produced lazily, one task per probe partition), else a streaming hash shuffle of both sides by
/// key into the same nparts partitions per rank (shuffle.hpp; nparts from the sizes and the memory limit)
/// and one join task per partition pair, so only one pair is resident at a time and outputs spill.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame {

enum class JoinKind : std::uint8_t { inner, left, right, outer };
enum class JoinStrategy : std::uint8_t { automatic, broadcast, hash };

/// Per-rank counters of the last merge.
struct MergeStats {
  bool broadcast = false;       ///< the broadcast strategy was used
  std::int64_t build_rows = 0;  ///< rows of the build (hashed) side on this rank; -1 (lazy) for hash
  std::int64_t probe_rows = 0;  ///< rows of the probe side on this rank; -1 (lazy) for hash
};

struct MergeOptions {
  JoinKind how = JoinKind::inner;
  std::string suffix_left = "_x";   ///< appended to clashing non-key left column names
  std::string suffix_right = "_y";  ///< appended to clashing non-key right column names
  JoinStrategy strategy = JoinStrategy::automatic;
  /// automatic: broadcast the non-preserved side when its total size (bytes, all ranks) is at most this and
  /// at most a quarter of the memory limit.
  std::uint64_t broadcast_threshold = 256ull << 20;
  MergeStats* stats = nullptr;
};

/**
 * @brief left.merge(right, on=on, how=...). Result columns: the keys (coalesced for right/outer joins;
 * string keys use the sorted union of both dictionaries), then left's other columns, then right's, with the
 * suffixes on names present on both sides. Duplicate keys on both sides give every pair. Null keys never
 * match (SQL semantics; pandas would match NaN with NaN); unmatched rows of a preserved side get nulls
 * (NaN for float64, masked elsewhere). Row order is unspecified (pandas keeps left order for inner/left).
 *
 * Collective: persists both inputs; broadcast gathers the build side at once, hash is lazy (shuffle rounds
 * and one task per partition pair); the probe-side work is lazy (one task per probe/pair partition). Broadcast is used
 * for inner (smaller side), left (right side) and right (left side) joins; outer always shuffles.
 * @throws InvalidArgument (every rank) for no keys or unknown key columns; TypeError (every rank) when a key's
 * types differ between the sides.
 */
[[nodiscard]] Frame merge(const Frame& left, const Frame& right, const std::vector<std::string>& on,
                          const MergeOptions& options = {});

/// The JoinKind named by pandas' `how` ("inner", "left", "right", "outer"). Not collective.
/// @throws InvalidArgument naming `how` otherwise.
[[nodiscard]] JoinKind parse_join_kind(std::string_view how);

/**
 * @brief The arguments of df.merge(right, {...}), pandas' keywords as designated initializers:
 * `{.on = {"k"}, .how = "left"}` or `{.left_on = {"a"}, .right_on = {"b"}, .how = "inner"}`.
 * With left_on/right_on, right's key columns are renamed to left's names before the merge, so the result has
 * one key column per pair, named as on the left (pandas keeps both: for inner joins they are equal).
 * Only Frame::merge takes it (a free merge(l, r, MergeArgs) would make merge(l, r, {}) ambiguous).
 * Frame::merge throws InvalidArgument (every rank) for a bad `how` (naming it), keys given both as `on` and as
 * left_on/right_on or neither way, left_on and right_on of different lengths, or a renamed right key clashing
 * with another right column; else as merge above.
 */
struct MergeArgs {
  // Every member has a default initializer, so that designated initializers leaving some out draw no
  // -Wmissing-field-initializers warning.
  std::vector<std::string> on = {};        ///< key columns of both sides (or left_on and right_on)
  std::vector<std::string> left_on = {};   ///< left's key columns, paired with right_on
  std::vector<std::string> right_on = {};  ///< right's key columns
  std::string how = "inner";               ///< "inner", "left", "right" or "outer"
  std::string suffix_left = "_x";          ///< pandas' suffixes=("_x", "_y")
  std::string suffix_right = "_y";
  JoinStrategy strategy = JoinStrategy::automatic;
  MergeStats* stats = nullptr;
};

}  // namespace slab::frame
