#pragma once
/// @file key_words.hpp
/// @brief Group/join keys as tuples of order-preserving 64-bit words, packed into one word when the
/// (global) value ranges allow. Word order == pandas' sort order (strings by dictionary rank, nulls last).
///
/// Per key column: [null flag word (0 valid, 1 null), only when nulls are kept] then a value word:
///   int64/timestamp: bits ^ 2^63; float64: the IEEE total-order flip with -0.0 -> 0.0; bool: 0/1;
///   string: the code (dictionaries are sorted), optionally remapped into a shared dictionary.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "frame/kernels/key_words_hd.hpp"
#include "slab/frame/batch.hpp"

namespace slab::frame::detail {

// The per-value words are kernels/key_words_hd.hpp's, the one source the device's key encoding shares.
using kernels::float_word;
using kernels::int_word;
using kernels::kSign;
using kernels::word_float;

struct KeyEncoder {
  static constexpr std::size_t kBlock = 2048;  ///< rows encoded at a time (scratch on the stack)
  std::vector<std::size_t> cols;               ///< batch column of each key
  std::vector<ElementType> types;              ///< type of each key
  std::vector<std::uint64_t> card;             ///< value-word cardinality when static (bool, string), else 0
  /// string keys: code -> code in the shared dictionary (empty = identity); -1 -> no match (merge only)
  std::vector<std::vector<std::int64_t>> remap;
  bool dropna = true;

  int nwords = 0;
  bool packed = false;
  std::vector<std::uint64_t> lo, span;  ///< per word (packing)
  std::uint64_t range = 0;              ///< product of spans when packed

  [[nodiscard]] int width() const noexcept { return packed ? 1 : nwords; }
  [[nodiscard]] bool has_flags() const noexcept { return !dropna; }
  /// Word index of key column k's value word.
  [[nodiscard]] int value_word(std::size_t k) const noexcept {
    return static_cast<int>(k) * (dropna ? 1 : 2) + (dropna ? 0 : 1);
  }

  /// Whether every word's range is known without a data pass.
  [[nodiscard]] bool static_ranges() const {
    for (auto c : card)
      if (c == 0) return false;
    return true;
  }

  /// Set words and default (unpacked) layout; call after cols/types/card/dropna.
  void init() {
    nwords = static_cast<int>(cols.size()) * (dropna ? 1 : 2);
    lo.assign(nwords, 0);
    span.assign(nwords, 0);
    remap.resize(cols.size());
    packed = false;
  }

  /// Value words of key k for rows [r0, r0 + n) into w[0, n): null rows get `fill` and set null[i] = 1 (other
  /// entries untouched). Column at a time: the type switch and the mask test stay outside the row loops.
  /// Returns whether any row was null.
  bool value_words(const BatchView& b, std::size_t k, std::size_t r0, std::size_t n, std::uint64_t fill,
                   std::uint64_t* w, std::uint8_t* null) const {
    const std::size_t c = cols[k];
    bool any = false;
    switch (types[k]) {
      case ElementType::int64:
      case ElementType::timestamp: {
        const std::int64_t* v = b.column<std::int64_t>(c).data() + r0;
        for (std::size_t i = 0; i < n; ++i) w[i] = int_word(v[i]);
        break;
      }
      case ElementType::float64: {
        const double* v = b.column<double>(c).data() + r0;
        for (std::size_t i = 0; i < n; ++i) {
          const bool nan = v[i] != v[i];
          w[i] = nan ? fill : float_word(v[i]);
          null[i] |= static_cast<std::uint8_t>(nan);
          any |= nan;
        }
        break;
      }
      case ElementType::boolean: {
        const std::uint8_t* v = b.column<std::uint8_t>(c).data() + r0;
        for (std::size_t i = 0; i < n; ++i) w[i] = v[i] ? 1 : 0;
        break;
      }
      case ElementType::string: {
        const std::int32_t* v = b.column<std::int32_t>(c).data() + r0;
        const std::vector<std::int64_t>& rm = remap[k];
        for (std::size_t i = 0; i < n; ++i) {
          const std::int64_t code = v[i] < 0 ? -1 : rm.empty() ? v[i] : rm[static_cast<std::size_t>(v[i])];
          const bool nul = code < 0;
          w[i] = nul ? fill : static_cast<std::uint64_t>(code);
          null[i] |= static_cast<std::uint8_t>(nul);
          any |= nul;
        }
        break;
      }
      default:  // not a column type: a Schema holds none
        break;
    }
    if (const std::uint8_t* valid = b.valid(c))
      for (std::size_t i = 0; i < n; ++i)
        if (!valid[r0 + i]) {
          w[i] = fill;
          null[i] = 1;
          any = true;
        }
    return any;
  }

  /// Fold key k's range into per-word [min, max] (mins/maxs of size nwords): a static key's [0, card - 1], a
  /// data-dependent key's value words [mn, mx] (min > max: none), and its null flag word's [0, 1] where nulls are
  /// kept. update_ranges' fold, and the device pass's (frame/key_ranges.hpp).
  void fold_range(std::size_t k, std::uint64_t mn, std::uint64_t mx, std::vector<std::uint64_t>& mins,
                  std::vector<std::uint64_t>& maxs) const {
    const int vw = value_word(k);
    if (card[k]) {
      mins[vw] = 0;
      maxs[vw] = std::max<std::uint64_t>(maxs[vw], card[k] - 1);
    } else {
      mins[vw] = std::min(mins[vw], mn);
      maxs[vw] = std::max(maxs[vw], mx);
    }
    if (!dropna) {
      mins[vw - 1] = 0;
      maxs[vw - 1] = 1;
    }
  }

  /// Fold this batch's value words into per-word [min, max] (mins/maxs of size nwords).
  void update_ranges(const BatchView& b, std::vector<std::uint64_t>& mins, std::vector<std::uint64_t>& maxs) const {
    const auto n = static_cast<std::size_t>(b.nrows());
    std::uint64_t w[kBlock];
    std::uint8_t null[kBlock];
    for (std::size_t k = 0; k < cols.size(); ++k) {
      std::uint64_t mn = ~0ull, mx = 0;  // this batch's value words (none: min > max)
      for (std::size_t r0 = 0; !card[k] && r0 < n; r0 += kBlock) {
        const std::size_t m = std::min(kBlock, n - r0);
        std::fill_n(null, m, 0);
        if (!value_words(b, k, r0, m, 0, w, null)) {
          for (std::size_t i = 0; i < m; ++i) {
            mn = std::min(mn, w[i]);
            mx = std::max(mx, w[i]);
          }
        } else {
          for (std::size_t i = 0; i < m; ++i)
            if (!null[i]) {
              mn = std::min(mn, w[i]);
              mx = std::max(mx, w[i]);
            }
        }
      }
      fold_range(k, mn, mx, mins, maxs);
    }
  }

  /// Decide packing from global per-word [min, max] (min > max: no values at all).
  void set_ranges(const std::vector<std::uint64_t>& mins, const std::vector<std::uint64_t>& maxs) {
    packed = true;
    unsigned __int128 prod = 1;
    for (int w = 0; w < nwords; ++w) {
      lo[w] = mins[w] <= maxs[w] ? mins[w] : 0;
      span[w] = mins[w] <= maxs[w] ? maxs[w] - mins[w] + 1 : 1;
      if (span[w] == 0) packed = false;  // full 2^64 range
      prod *= span[w];
      if (prod > (static_cast<unsigned __int128>(1) << 63)) packed = false;
    }
    range = packed ? static_cast<std::uint64_t>(prod) : 0;
    if (!packed) std::fill(lo.begin(), lo.end(), 0);
  }
  /// Single word keys need no packing; ranges only help the direct map.
  void set_unpacked() {
    packed = false;
    std::fill(lo.begin(), lo.end(), 0);
  }

  /// Encode every row: out[w][row] for w < width(); keep[row] = 0 where the key is dropped (null, or a
  /// string with no match in the shared dictionary). Returns the number of kept rows. Works in blocks of
  /// kBlock rows, one key column at a time, so no per-row type switch and no scratch as large as the batch.
  std::int64_t encode(const BatchView& b, std::vector<std::vector<std::uint64_t>>& out,
                      std::vector<std::uint8_t>& keep) const {
    const auto n = static_cast<std::size_t>(b.nrows());
    out.resize(width());
    for (auto& o : out) o.resize(n);
    keep.assign(n, 1);
    std::size_t dropped = 0;
    std::uint64_t col[kBlock];
    std::uint8_t null[kBlock];
    for (std::size_t r0 = 0; r0 < n; r0 += kBlock) {
      const std::size_t m = std::min(kBlock, n - r0);
      for (std::size_t k = 0; k < cols.size(); ++k) {
        const int vw = value_word(k);
        std::fill_n(null, m, 0);
        std::uint64_t* dst = packed ? col : out[vw].data() + r0;
        const bool any = value_words(b, k, r0, m, lo[vw], dst, null);
        if (any && dropna)
          for (std::size_t i = 0; i < m; ++i) {
            dropped += null[i] & keep[r0 + i];
            keep[r0 + i] &= static_cast<std::uint8_t>(!null[i]);
          }
        if (packed) {
          // Mixed radix: o = ((word0 - lo0) * span1 + (word1 - lo1)) * span2 + ...
          std::uint64_t* o = out[0].data() + r0;
          if (!dropna) {
            const std::uint64_t s = span[vw - 1];
            if (k == 0)
              for (std::size_t i = 0; i < m; ++i) o[i] = null[i];
            else
              for (std::size_t i = 0; i < m; ++i) o[i] = o[i] * s + null[i];
          }
          const std::uint64_t s = span[vw], l = lo[vw];
          if (k == 0 && dropna)
            for (std::size_t i = 0; i < m; ++i) o[i] = col[i] - l;
          else
            for (std::size_t i = 0; i < m; ++i) o[i] = o[i] * s + (col[i] - l);
        } else if (!dropna) {
          std::uint64_t* f = out[vw - 1].data() + r0;
          for (std::size_t i = 0; i < m; ++i) f[i] = null[i];
        }
      }
    }
    return static_cast<std::int64_t>(n - dropped);
  }

  /// The nwords words of a width()-word key.
  void unpack(const std::uint64_t* key, std::uint64_t* words) const {
    if (!packed) {
      for (int w = 0; w < nwords; ++w) words[w] = key[w];
      return;
    }
    std::uint64_t p = key[0];
    for (int w = nwords - 1; w >= 0; --w) {
      words[w] = p % span[w] + lo[w];
      p /= span[w];
    }
  }
};

}  // namespace slab::frame::detail
