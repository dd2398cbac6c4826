#pragma once
// Private to the array layer: an array assembled from pieces of others by flat (C-order) index, the one
// redistribution behind reshape, concatenate along axis 0, vstack and stack along axis 0. Each source is seen
// as its elements in C order, placed at a flat offset of the result; the result's blocks are row ranges (split
// rows or none), so each rank's block is one contiguous range of flat indices, and elements cross ranks only
// where a source's block and the result's block of the same flat indices are on different ranks.
#include <cstdint>
#include <vector>

#include "slab/array/array.hpp"

namespace slab::detail {

/// A source of assemble_flat: `array`'s elements in C order are elements [offset, offset + array.size()) of
/// the result.
template <class T>
struct FlatSource {
  Array<T> array;
  std::int64_t offset = 0;
};

/**
 * The array of layout `target` (split rows or none) whose flat element k is the source element that the
 * sources place at k; the sources' ranges must tile [0, target.size()) (the caller checks shapes first).
 * When no element changes rank (every rank's block of the result is made of what it holds of the sources,
 * or every source is replicated), one local task per result chunk, lazy and not collective. Otherwise the
 * result is built in rounds, round j making chunk j of every rank with one collective task (an alltoallv of
 * just the pieces of those chunks; each rank pins only the source chunks those pieces come from), so memory
 * stays at about one result chunk and the source chunks it overlaps per rank: recorded lazily, collective.
 */
template <class T>
Array<T> assemble_flat(Engine& engine, const std::vector<FlatSource<T>>& sources, const Layout& target,
                       const char* name);

/// Elements per chunk of `l` (at least 1): what a result's chunks should hold to stay as small as its input's.
std::int64_t chunk_elements(const Layout& l) noexcept;

/// `a` seen as 2-D (n x 1 for a 1-D array of length n): the same chunks and blocks, no task. Not collective.
template <class T>
Array<T> as_2d(const Array<T>& a);

}  // namespace slab::detail
