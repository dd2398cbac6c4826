#pragma once
/// @file key_encode.hpp
/// @brief Key columns -> order-preserving 64-bit key words, as frame/key_words.hpp's KeyEncoder writes them
/// (groupby, merge) and as sort.cpp's records hold them (sort_values). Entry points of key_encode.inl.
///
/// Layout of the words: the KeyEncoder's. Per key column [a null flag word, only when nulls are kept] then a
/// value word (int64/timestamp: bits ^ 2^63; float64: the total-order flip with -0.0 -> 0.0, NaN null; bool 0/1;
/// string: the code, or remap[code] into a shared dictionary, -1 = no match = null). Packed (one word): the
/// mixed-radix number ((w0 - lo0) * span1 + (w1 - lo1)) * span2 + ... over all words. A null value word holds
/// lo[word] (0 unpacked). The host decides the layout (KeyLayout, from the KeyEncoder after its range pass,
/// see key_layout.hpp); the kernels only apply it.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "core/kernels/hd.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// One key column and, for strings, the code remap into a shared dictionary (backend memory, one int64 per
/// code of the column's dictionary, -1 = absent from the other side; nullptr = identity).
struct KeyColumn {
  ColumnView column;
  const std::int64_t* remap = nullptr;
};

/// The KeyEncoder's layout decision (ncols key columns; nwords = ncols * (dropna ? 1 : 2) words).
struct KeyLayout {
  int ncols = 0;
  bool dropna = true;
  bool packed = false;
  std::uint64_t lo[kMaxKeyWords] = {};    ///< per word (packed), 0 unpacked
  std::uint64_t span[kMaxKeyWords] = {};  ///< per word (packed)
  [[nodiscard]] SLAB_HD int nwords() const noexcept { return ncols * (dropna ? 1 : 2); }
  /// Words per key as written: 1 when packed.
  [[nodiscard]] SLAB_HD int width() const noexcept { return packed ? 1 : nwords(); }
  [[nodiscard]] SLAB_HD int value_word(int k) const noexcept { return k * (dropna ? 1 : 2) + (dropna ? 0 : 1); }
};

/// A sort key column of sort_values (sort.cpp's Encoder).
struct SortColumn {
  ColumnView column;
  bool ascending = true;
};

template <class B>
struct KeyKernels {
  /**
   * @brief KeyEncoder::encode: words[w][i] for w < layout.width() (backend arrays of n), keep[i] = 0 where the
   * key is dropped (a null key with dropna). `keys` is a host array of layout.ncols columns; `words` a host
   * array of width() backend pointers. Returns the number of kept rows (synchronises once).
   * @throws InvalidArgument for more than kMaxKeyColumns keys.
   */
  static std::int64_t encode(const Exec& exec, const KeyColumn* keys, const KeyLayout& layout, std::int64_t n,
                             std::uint64_t* const* words, std::uint8_t* keep);

  /**
   * @brief KeyEncoder::update_ranges for one column with a data-dependent range (int64, timestamp, float64):
   * the smallest and largest value word of its non-null rows, into *min / *max (host), or min > max when every
   * row is null (min = UINT64_MAX, max = 0, the host's identities). Synchronises once.
   */
  static void value_word_range(const Exec& exec, const KeyColumn& key, std::int64_t n, std::uint64_t* min,
                               std::uint64_t* max);

  /**
   * @brief sort.cpp's records without the row index word: words[2k][i] = the null word of column k (nulls first
   * or last whatever the direction), words[2k + 1][i] = its value word (flipped when descending, 0 for a null).
   * A stable sort of these words is sort_values' order (the row index only breaks ties). Asynchronous.
   */
  static void sort_words(const Exec& exec, const SortColumn* cols, int ncols, bool nulls_first, std::int64_t n,
                         std::uint64_t* const* words);

  /**
   * @brief The inverse of encode (KeyEncoder::unpack, then groupby's write_result): n keys' words (a host array
   * of layout.width() backend arrays) back into key columns. `out` is a host array of layout.ncols pointers to
   * ColumnView-typed output arrays (`types`: host array of their types; int64/timestamp, float64 (a null: NaN),
   * boolean, string codes (a null: -1)); `valid` a host array of ncols backend masks, written when the layout
   * keeps nulls (nullptr entries otherwise). Asynchronous.
   */
  static void decode(const Exec& exec, std::uint64_t const* const* words, const KeyLayout& layout,
                     const ElementType* types, std::int64_t n, void* const* out, std::uint8_t* const* valid);
};

}  // namespace slab::frame::kernels
