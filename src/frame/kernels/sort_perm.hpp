#pragma once
/// @file sort_perm.hpp
/// @brief A stable radix-sort permutation over key words (one word, packed, or several, compared
/// lexicographically word 0 first), and gathers of word columns by a permutation. Entry points of
/// sort_perm.inl. The order is the host's std::sort order of the same words with ties broken by row index
/// (the row index word of sort_values, the first-seen order of groupby's result sort after its own sort).

#include <bit>
#include <cstdint>

#include "core/kernels/exec.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// Significant bits of words whose values are at most `max` (0 for max = 0): the radix sort's end bit.
[[nodiscard]] constexpr int bits_for(std::uint64_t max) noexcept { return 64 - std::countl_zero(max); }

template <class B>
struct SortKernels {
  /**
   * @brief perm[j] = the row at sorted position j of n keys given as nwords backend word columns (host array
   * `words` of backend pointers). bits: host array of nwords end bits (word w's values lie in [0, 2^bits[w])),
   * nullptr = 64 bits each; fewer bits, fewer radix passes (a packed key of range R needs bits_for(R - 1)).
   * Stable: equal keys keep their row order. Scratch: 2 n words + n indices (+ the sort's own). Asynchronous.
   */
  static void permutation(const Exec& exec, const std::uint64_t* const* words, int nwords, const int* bits,
                          std::int64_t n, std::int64_t* perm);
  /// out[w][j] = words[w][rows[j]] for j < n (w < nwords; out and words host arrays of backend pointers).
  /// rows[j] = -1 gives 0. Asynchronous.
  static void gather_words(const Exec& exec, const std::uint64_t* const* words, int nwords, const std::int64_t* rows,
                           std::int64_t n, std::uint64_t* const* out);
};

}  // namespace slab::frame::kernels
